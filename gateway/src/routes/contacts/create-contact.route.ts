import { createContactBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Contact } from '../../schemas/contact.schemas';
import { withoutUnreadable } from './embedded-scopes';

export const createContactRoute = defineRoute({
  operationId: 'createContact',
  method: 'POST',
  path: '/v1/contacts',
  tag: 'Contacts',
  summary: 'Create a contact',
  description: 'Honours Idempotency-Key (24 h). Emits contact.created.',
  scope: 'write:contacts',
  body: createContactBody,
  success: { status: 201, kind: 'one', schema: Contact },
  errors: [
    'INVALID_JSON',
    'UNKNOWN_FIELDS',
    'VALIDATION_ERROR',
    'INVALID_ID',
    'INVALID_REFERENCE',
    'DUPLICATE_CONTACT',
    'IDEMPOTENCY_KEY_REUSED',
    'IDEMPOTENCY_KEY_IN_USE',
  ],
  idempotent: true,
  handle: async ({ body, principal, clients }) =>
    withoutUnreadable(await clients.contacts.createContact({ org_id: principal.orgId, id: '', body }), principal),
});
