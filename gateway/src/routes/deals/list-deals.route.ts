import { DEAL_SORTS, DEAL_STATUSES, idOf } from '@crm/shared/schemas';
import { z } from 'zod';
import { sortedFilterOf } from '../../http/list-query';
import { defineRoute } from '../../http/route';
import { Deal } from '../../schemas/deal.schemas';
import { isoQuery, pageQuery } from '../../schemas/registry';

const query = z.object({
  ...pageQuery,
  sort: z
    .enum(DEAL_SORTS)
    .default('created_at')
    .describe('expected_close_date: deals without a date sort after every date (last ascending, first descending)'),
  order: z.enum(['desc', 'asc']).default('desc'),
  search: z.string().trim().min(1).max(200).optional().describe('case-insensitive match on the title'),
  funnel_id: idOf('funnel').optional(),
  stage_id: z.string().trim().min(1).max(100).optional().describe('a stage id; a stage name (case-insensitive) still works'),
  status: z.enum(DEAL_STATUSES).optional(),
  assigned_to: idOf('member').optional(),
  tag: z.string().min(1).max(50).optional().describe('exact tag'),
  created_after: isoQuery.optional(),
  created_before: isoQuery.optional(),
  updated_after: isoQuery.optional(),
});

export const listDealsRoute = defineRoute({
  operationId: 'listDeals',
  method: 'GET',
  path: '/v1/deals',
  tag: 'Deals',
  summary: 'List deals',
  description: "Filters, sorts and pages through the live deals. meta.total counts the organization's deals without filters.",
  scope: 'read:deals',
  query,
  success: { status: 200, kind: 'list', schema: Deal },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR', 'INVALID_ID'],
  handle: ({ query: q, principal, clients, page }) => clients.deals.listDeals({ org_id: principal.orgId, page, ...sortedFilterOf(q) }),
});
