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
    'Sends an example event of event_type (default: the first subscribed kind) with a realistic payload, within the call (at most the delivery timeout, 10 s), and returns the delivery (is_test true). One attempt, no retries; also while paused.',
  scope: 'write:webhooks',
  params: webhookIdParams,
  body: testWebhookBody,
  success: { status: 200, kind: 'one', schema: WebhookDelivery },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR'],
  handle: ({ params, body, principal, clients }) => clients.webhooks.testWebhook({ org_id: principal.orgId, id: params.id, body }),
});
