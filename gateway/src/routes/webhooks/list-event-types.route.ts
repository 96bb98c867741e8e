import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { pageQuery } from '../../schemas/registry';
import { EventType } from '../../schemas/webhook.schemas';

export const listEventTypesRoute = defineRoute({
  operationId: 'listWebhookEventTypes',
  method: 'GET',
  path: '/v1/webhooks/event-types',
  tag: 'Webhooks',
  summary: 'List the event kinds',
  description: 'All 48 kinds that can be subscribed to, in catalogue order; api_write marks the 21 that API writes emit.',
  scope: 'read:webhooks',
  query: z.object(pageQuery),
  success: { status: 200, kind: 'list', schema: EventType },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ clients, page }) => clients.webhooks.listEventTypes({ page }),
});
