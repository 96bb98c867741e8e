import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { Funnel } from '../../schemas/funnel.schemas';
import { booleanQuery, pageQuery } from '../../schemas/registry';

export const listFunnelsRoute = defineRoute({
  operationId: 'listFunnels',
  method: 'GET',
  path: '/v1/funnels',
  tag: 'Funnels',
  summary: 'List funnels',
  description:
    "In board order (position ascending), each with its stages and the totals of its open deals. meta.total counts all the organization's funnels, archived included.",
  scope: 'read:funnels',
  query: z.object({ ...pageQuery, include_archived: booleanQuery.default(false).describe('default false') }),
  success: { status: 200, kind: 'list', schema: Funnel },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ query, principal, clients, page }) =>
    clients.funnels.listFunnels({
      org_id: principal.orgId,
      page,
      include_archived: query.include_archived,
    }),
});
