import { DEAL_STATUSES } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { Deal } from '../../schemas/deal.schemas';
import { pageQuery } from '../../schemas/registry';
import { contactIdParams } from '../contacts/params';

export const listContactDealsRoute = defineRoute({
  operationId: 'listContactDeals',
  method: 'GET',
  path: '/v1/contacts/{id}/deals',
  tag: 'Contacts',
  summary: "List a contact's deals",
  description:
    "All live deals linked to the contact, newest first (GET /v1/contacts/{id} embeds at most 10). meta.total counts the contact's deals.",
  scope: 'read:deals',
  params: contactIdParams,
  query: z.object({ ...pageQuery, status: z.enum(DEAL_STATUSES).optional() }),
  success: { status: 200, kind: 'list', schema: Deal },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ params, query, principal, clients, page }) =>
    clients.deals.listDeals({
      org_id: principal.orgId,
      page,
      sort: 'created_at',
      order: 'desc',
      filter: { status: query.status },
      contact_id: params.id,
    }),
});
