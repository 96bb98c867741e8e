import { defineRoute } from '../../http/route';
import { ContactDetail } from '../../schemas/contact.schemas';
import { contactIdParams } from './params';

export const getContactRoute = defineRoute({
  operationId: 'getContact',
  method: 'GET',
  path: '/v1/contacts/{id}',
  tag: 'Contacts',
  summary: 'Read a contact',
  description: 'The contact with messages_count and at most 10 linked deals.',
  scope: 'read:contacts',
  params: contactIdParams,
  success: { status: 200, kind: 'one', schema: ContactDetail },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.contacts.getContact({ org_id: principal.orgId, id: params.id }),
});
