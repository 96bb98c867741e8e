import { createDealBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Deal } from '../../schemas/deal.schemas';

export const createDealRoute = defineRoute({
  operationId: 'createDeal',
  method: 'POST',
  path: '/v1/deals',
  tag: 'Deals',
  summary: 'Create a deal',
  description:
    'Status open. Without funnel_id the default funnel is used (INVALID_REFERENCE when the organization has none); without stage_id, the first stage of the funnel. Honours Idempotency-Key (24 h). Emits deal.created.',
  scope: 'write:deals',
  body: createDealBody,
  success: { status: 201, kind: 'one', schema: Deal },
  errors: [
    'INVALID_JSON',
    'UNKNOWN_FIELDS',
    'VALIDATION_ERROR',
    'INVALID_ID',
    'INVALID_REFERENCE',
    'IDEMPOTENCY_KEY_REUSED',
    'IDEMPOTENCY_KEY_IN_USE',
  ],
  idempotent: true,
  handle: ({ body, principal, clients }) => clients.deals.createDeal({ org_id: principal.orgId, id: '', body }),
});
