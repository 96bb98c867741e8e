import { DELIVERY_STATUSES, eventTypeSchema } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { isoQuery, pageQuery } from '../../schemas/registry';
import { WebhookDelivery } from '../../schemas/webhook.schemas';
import { webhookIdParams } from './params';

export const listDeliveriesRoute = defineRoute({
  operationId: 'listWebhookDeliveries',
  method: 'GET',
  path: '/v1/webhooks/{id}/deliveries',
  tag: 'Webhooks',
  summary: 'The delivery log of a subscription',
  description:
    'Newest first, kept 15 days; limit above 100 is clamped (limit=200 is accepted). meta.total counts the deliveries without filters.',
  scope: 'read:webhooks',
  params: webhookIdParams,
  query: z.object({
    ...pageQuery,
    status: z.enum(DELIVERY_STATUSES).optional(),
    event_type: eventTypeSchema.optional(),
    created_after: isoQuery.optional(),
  }),
  success: { status: 200, kind: 'list', schema: WebhookDelivery },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ params, query, principal, clients, page }) =>
    clients.webhooks.listDeliveries({
      org_id: principal.orgId,
      webhook_id: params.id,
      page,
      filter: { status: query.status, event_type: query.event_type, created_after: query.created_after },
    }),
});
