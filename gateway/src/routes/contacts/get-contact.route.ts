import { defineRoute } from '../../http/route';
import { ContactDetail } from '../../schemas/contact.schemas';
import { contactIdParams } from './params';
import { withoutUnreadable } from './embedded-scopes';

export const getContactRoute = defineRoute({
  operationId: 'getContact',
  method: 'GET',
  path: '/v1/contacts/{id}',
  tag: 'Contacts',
  summary: 'Read a contact',
  description:
    'The contact with messages_count and at most 10 linked deals. deals is empty for a key without read:deals, and company null for a key without read:companies.',
  scope: 'read:contacts',
  params: contactIdParams,
  success: { status: 200, kind: 'one', schema: ContactDetail },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: async ({ params, principal, clients }) =>
    withoutUnreadable(await clients.contacts.getContact({ org_id: principal.orgId, id: params.id }), principal),
});
