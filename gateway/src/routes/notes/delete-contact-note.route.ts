import { defineRoute } from '../../http/route';
import { contactNoteParams } from './params';

export const deleteContactNoteRoute = defineRoute({
  operationId: 'deleteContactNote',
  method: 'DELETE',
  path: '/v1/contacts/{id}/notes/{noteId}',
  tag: 'Contacts',
  summary: 'Delete a note of a contact',
  description: 'Emits no event.',
  scope: 'write:contacts',
  params: contactNoteParams,
  success: { status: 204, kind: 'none' },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) =>
    clients.notes.deleteNote({ org_id: principal.orgId, parent: { contact_id: params.id }, id: params.noteId }),
});
