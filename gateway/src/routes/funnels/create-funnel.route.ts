import { createFunnelBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Funnel } from '../../schemas/funnel.schemas';

export const createFunnelRoute = defineRoute({
  operationId: 'createFunnel',
  method: 'POST',
  path: '/v1/funnels',
  tag: 'Funnels',
  summary: 'Create a funnel',
  description:
    "With 1–30 stages in board order. is_default: true makes it the default (the previous default loses it); an organization's first funnel is always the default. Active funnels per plan: free 1, starter 3, pro 20, enterprise unlimited (PLAN_RESTRICTION beyond).",
  scope: 'write:funnels',
  body: createFunnelBody,
  success: { status: 201, kind: 'one', schema: Funnel },
  errors: ['INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'PLAN_RESTRICTION'],
  handle: ({ body, principal, clients }) => clients.funnels.createFunnel({ org_id: principal.orgId, id: '', body }),
});
