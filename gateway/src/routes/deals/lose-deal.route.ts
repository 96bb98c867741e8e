import { loseDealBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Deal } from '../../schemas/deal.schemas';
import { dealIdParams } from './params';

export const loseDealRoute = defineRoute({
  operationId: 'loseDeal',
  method: 'POST',
  path: '/v1/deals/{id}/lose',
  tag: 'Deals',
  summary: 'Mark a deal lost',
  description:
    'open → lost, with an optional lost_reason (at most 500 characters); closed_at is set. Emits deal.updated with the previous status.',
  scope: 'write:deals',
  params: dealIdParams,
  body: loseDealBody,
  success: { status: 200, kind: 'one', schema: Deal },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'INVALID_STATUS'],
  handle: ({ params, body, principal, clients }) => clients.deals.loseDeal({ org_id: principal.orgId, id: params.id, body }),
});
