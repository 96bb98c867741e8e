import { createNoteBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Note } from '../../schemas/note.schemas';
import { dealNotesParams } from './params';

export const createDealNoteRoute = defineRoute({
  operationId: 'createDealNote',
  method: 'POST',
  path: '/v1/deals/{id}/notes',
  tag: 'Deals',
  summary: 'Add a note to a deal',
  description:
    'color defaults to yellow, category to general. Answers the full note (id, content, color, category, created_at, updated_at). Emits deal.note.added.',
  scope: 'write:deals',
  params: dealNotesParams,
  body: createNoteBody,
  success: { status: 201, kind: 'one', schema: Note },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR'],
  handle: ({ params, body, principal, clients }) =>
    clients.notes.createNote({ org_id: principal.orgId, parent: { deal_id: params.id }, id: '', body }),
});
