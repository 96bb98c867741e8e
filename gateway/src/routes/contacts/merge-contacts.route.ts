import { mergeContactsBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { ContactDetail } from '../../schemas/contact.schemas';
import { contactIdParams } from './params';

export const mergeContactsRoute = defineRoute({
  operationId: 'mergeContacts',
  method: 'POST',
  path: '/v1/contacts/{id}/merge',
  tag: 'Contacts',
  summary: 'Merge contacts into this one',
  description:
    'Folds the contacts of contact_ids (1–20) into the contact of the path: their deals, notes, tasks and tags move to it, ' +
    'it takes the fields it lacks from them (the first in contact_ids that has one wins), and they are deleted (a read ' +
    'answers 404 with details.merged_into, from the moment the merge claims them). A merge interrupted by a crash is ' +
    'completed by a retry, or by the service within seconds. Their conversations follow within moments. Emits contact.merged once, ' +
    'contact.deleted for each folded contact, and contact.updated / contact.tag.added for what the contact gained. ' +
    'Idempotent: contacts already merged into this one are passed over; honours Idempotency-Key (24 h). See docs/contact-merge.md.',
  scope: 'write:contacts',
  params: contactIdParams,
  body: mergeContactsBody,
  success: { status: 200, kind: 'one', schema: ContactDetail },
  errors: [
    'INVALID_ID',
    'NOT_FOUND',
    'INVALID_JSON',
    'UNKNOWN_FIELDS',
    'VALIDATION_ERROR',
    'INVALID_REFERENCE',
    'IDEMPOTENCY_KEY_REUSED',
    'IDEMPOTENCY_KEY_IN_USE',
  ],
  idempotent: true,
  handle: ({ params, body, principal, clients }) => clients.contacts.mergeContacts({ org_id: principal.orgId, id: params.id, body }),
});
