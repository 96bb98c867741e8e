import { z } from 'zod';
import type { Clients } from '../clients';
import { defineRoute } from '../http/route';
import { batchUpsertBody, BatchItemResult, publicItemResults } from '../schemas/batch.schemas';

type ServiceResults = Parameters<typeof publicItemResults>[0];

/**
 * A batch upsert route (contacts, companies): {items: [1–100]}, one result per item; Idempotency-Key for the whole
 * batch; one request per item in the rate limits.
 */
export function batchUpsertRoute(route: {
  operationId: string;
  path: string;
  tag: string;
  summary: string;
  description: string;
  scope: 'write:contacts' | 'write:companies';
  item: z.ZodType;
  call: (clients: Clients, request: { org_id: string; items: unknown[] }) => Promise<{ items: ServiceResults }>;
}) {
  return defineRoute({
    operationId: route.operationId,
    method: 'POST',
    path: route.path,
    tag: route.tag,
    summary: route.summary,
    description: route.description,
    scope: route.scope,
    body: batchUpsertBody(route.item),
    success: { status: 200, kind: 'one', schema: z.array(BatchItemResult) },
    errors: ['INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE'],
    idempotent: true,
    rateCost: (input) => input.items.length,
    handle: async ({ body: input, principal, clients }) =>
      publicItemResults((await route.call(clients, { org_id: principal.orgId, items: input.items })).items),
  });
}
