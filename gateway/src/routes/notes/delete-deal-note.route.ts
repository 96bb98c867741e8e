import { defineRoute } from '../../http/route';
import { dealNoteParams } from './params';

export const deleteDealNoteRoute = defineRoute({
  operationId: 'deleteDealNote',
  method: 'DELETE',
  path: '/v1/deals/{id}/notes/{noteId}',
  tag: 'Deals',
  summary: 'Delete a note of a deal',
  description: 'Emits no event.',
  scope: 'write:deals',
  params: dealNoteParams,
  success: { status: 204, kind: 'none' },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) =>
    clients.notes.deleteNote({ org_id: principal.orgId, parent: { deal_id: params.id }, id: params.noteId }),
});
