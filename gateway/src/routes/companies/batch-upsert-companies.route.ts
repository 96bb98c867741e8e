import { upsertCompanyItem } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { batchUpsertBody, BatchItemResult, publicItemResults } from '../../schemas/batch.schemas';

const body = batchUpsertBody(upsertCompanyItem);

export const batchUpsertCompaniesRoute = defineRoute({
  operationId: 'batchUpsertCompanies',
  method: 'POST',
  path: '/v1/companies/batch/upsert',
  tag: 'Companies',
  summary: 'Create or update up to 100 companies',
  description:
    'Each item is matched by external_id, then email, then phone (the oldest live company holding it), and created ' +
    'or updated atomically on its own (concurrent batches naming the same company by the same key produce one). ' +
    'Answers 200 with one result per item, in order: created, updated, unchanged or error (with the public error ' +
    'object); one bad item never fails the others. name is required only when an item creates. Emits company.created ' +
    'and company.updated as single writes do. Honours Idempotency-Key for the whole batch. Counts one request per ' +
    'item in the rate limits.',
  scope: 'write:companies',
  body,
  success: { status: 200, kind: 'one', schema: z.array(BatchItemResult) },
  errors: ['INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE'],
  idempotent: true,
  rateCost: (input) => input.items.length,
  handle: async ({ body: input, principal, clients }) =>
    publicItemResults((await clients.companies.batchUpsertCompanies({ org_id: principal.orgId, items: input.items })).items),
});
