import { defineRoute } from '../../http/route';
import { contactIdParams } from './params';

export const deleteContactRoute = defineRoute({
  operationId: 'deleteContact',
  method: 'DELETE',
  path: '/v1/contacts/{id}',
  tag: 'Contacts',
  summary: 'Delete a contact',
  description: 'Soft delete: the contact leaves lists and searches, the record is kept. Emits contact.deleted.',
  scope: 'write:contacts',
  params: contactIdParams,
  success: { status: 204, kind: 'none' },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.contacts.deleteContact({ org_id: principal.orgId, id: params.id }),
});
