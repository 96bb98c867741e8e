import { testWebhookBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { WebhookDelivery } from '../../schemas/webhook.schemas';
import { webhookIdParams } from './params';

export const testWebhookRoute = defineRoute({
  operationId: 'testWebhook',
  method: 'POST',
  path: '/v1/webhooks/{id}/test',
  tag: 'Webhooks',
  summary: 'Send an example event',
  description:
    'Sends an example event of event_type (default: the first subscribed kind) with a realistic payload, within the call, and returns the delivery (is_test true). One attempt, no retries; also while paused. The attempt waits at most WEBHOOK_MANUAL_TIMEOUT_MS (default 5 s; a slower receiver gives error timeout); an organization has at most WEBHOOK_MANUAL_CONCURRENCY test sends and redeliveries in flight (default 4), RATE_LIMITED with Retry-After beyond.',
  scope: 'write:webhooks',
  params: webhookIdParams,
  body: testWebhookBody,
  success: { status: 200, kind: 'one', schema: WebhookDelivery },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'RATE_LIMITED'],
  handle: ({ params, body, principal, clients }) => clients.webhooks.testWebhook({ org_id: principal.orgId, id: params.id, body }),
});
