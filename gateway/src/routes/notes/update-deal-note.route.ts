import { updateNoteBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Note } from '../../schemas/note.schemas';
import { dealNoteParams } from './params';

export const updateDealNoteRoute = defineRoute({
  operationId: 'updateDealNote',
  method: 'PATCH',
  path: '/v1/deals/{id}/notes/{noteId}',
  tag: 'Deals',
  summary: 'Update a note of a deal',
  description: 'Any of content, color, category. Emits no event.',
  scope: 'write:deals',
  params: dealNoteParams,
  body: updateNoteBody,
  success: { status: 200, kind: 'one', schema: Note },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR'],
  handle: ({ params, body, principal, clients }) =>
    clients.notes.updateNote({ org_id: principal.orgId, parent: { deal_id: params.id }, id: params.noteId, body }),
});
