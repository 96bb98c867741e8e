import { updateNoteBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Note } from '../../schemas/note.schemas';
import { contactNoteParams } from './params';

export const updateContactNoteRoute = defineRoute({
  operationId: 'updateContactNote',
  method: 'PATCH',
  path: '/v1/contacts/{id}/notes/{noteId}',
  tag: 'Contacts',
  summary: 'Update a note of a contact',
  description: 'Any of content, color, category. Emits no event.',
  scope: 'write:contacts',
  params: contactNoteParams,
  body: updateNoteBody,
  success: { status: 200, kind: 'one', schema: Note },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR'],
  handle: ({ params, body, principal, clients }) =>
    clients.notes.updateNote({ org_id: principal.orgId, parent: { contact_id: params.id }, id: params.noteId, body }),
});
