import { updateContactBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Contact } from '../../schemas/contact.schemas';
import { contactIdParams } from './params';
import { withoutUnreadable } from './embedded-scopes';

export const updateContactRoute = defineRoute({
  operationId: 'updateContact',
  method: 'PATCH',
  path: '/v1/contacts/{id}',
  tag: 'Contacts',
  summary: 'Update a contact',
  description:
    'Send only the fields to change; tags and custom_fields replace the stored values. Channel ids and counters are read-only. Emits contact.updated and, per tag in the diff, contact.tag.added / contact.tag.removed.',
  scope: 'write:contacts',
  params: contactIdParams,
  body: updateContactBody,
  success: { status: 200, kind: 'one', schema: Contact },
  errors: [
    'INVALID_ID',
    'NOT_FOUND',
    'INVALID_JSON',
    'UNKNOWN_FIELDS',
    'VALIDATION_ERROR',
    'INVALID_REFERENCE',
    'DUPLICATE_CONTACT',
    'PLAN_RESTRICTION',
  ],
  handle: async ({ params, body, principal, clients }) =>
    withoutUnreadable(await clients.contacts.updateContact({ org_id: principal.orgId, id: params.id, body }), principal),
});
