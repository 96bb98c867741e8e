import { upsertCompanyItem } from '@crm/shared/schemas';
import { batchUpsertRoute } from '../batch-upsert';

export const batchUpsertCompaniesRoute = batchUpsertRoute({
  operationId: 'batchUpsertCompanies',
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
  item: upsertCompanyItem,
  call: (clients, request) => clients.companies.batchUpsertCompanies(request),
});
