import { createNoteBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Note } from '../../schemas/note.schemas';
import { contactNotesParams } from './params';

export const createContactNoteRoute = defineRoute({
  operationId: 'createContactNote',
  method: 'POST',
  path: '/v1/contacts/{id}/notes',
  tag: 'Contacts',
  summary: 'Add a note to a contact',
  description: 'color defaults to yellow, category to general. Emits contact.note.added.',
  scope: 'write:contacts',
  params: contactNotesParams,
  body: createNoteBody,
  success: { status: 201, kind: 'one', schema: Note },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR'],
  handle: ({ params, body, principal, clients }) =>
    clients.notes.createNote({ org_id: principal.orgId, parent: { contact_id: params.id }, id: '', body }),
});
