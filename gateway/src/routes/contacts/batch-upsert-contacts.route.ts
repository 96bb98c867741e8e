import { upsertContactItem } from '@crm/shared/schemas';
import { batchUpsertRoute } from '../batch-upsert';

export const batchUpsertContactsRoute = batchUpsertRoute({
  operationId: 'batchUpsertContacts',
  path: '/v1/contacts/batch/upsert',
  tag: 'Contacts',
  summary: 'Create or update up to 100 contacts',
  description:
    'Each item is matched by external_id, then email, then phone, and created or updated atomically on its own ' +
    '(concurrent batches naming the same person by the same key produce one contact). Answers 200 with one result per ' +
    'item, in order: created, updated, unchanged or error (with the public error object); one bad item never fails the ' +
    'others. name is required only when an item creates; source applies only then. Emits the events of single writes ' +
    '(contact.created; contact.updated and tag events). Honours Idempotency-Key for the whole batch. Counts one ' +
    'request per item in the rate limits.',
  scope: 'write:contacts',
  item: upsertContactItem,
  call: (clients, request) => clients.contacts.batchUpsertContacts(request),
});
