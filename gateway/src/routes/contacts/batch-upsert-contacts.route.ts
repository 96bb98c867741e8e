import { upsertContactItem } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { batchUpsertBody, BatchItemResult, publicItemResults } from '../../schemas/batch.schemas';

const body = batchUpsertBody(upsertContactItem);

export const batchUpsertContactsRoute = defineRoute({
  operationId: 'batchUpsertContacts',
  method: 'POST',
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
  body,
  success: { status: 200, kind: 'one', schema: z.array(BatchItemResult) },
  errors: ['INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE'],
  idempotent: true,
  rateCost: (input) => input.items.length,
  handle: async ({ body: input, principal, clients }) =>
    publicItemResults((await clients.contacts.batchUpsertContacts({ org_id: principal.orgId, items: input.items })).items),
});
