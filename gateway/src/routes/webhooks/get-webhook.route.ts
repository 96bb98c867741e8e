import { defineRoute } from '../../http/route';
import { Webhook } from '../../schemas/webhook.schemas';
import { webhookIdParams } from './params';

export const getWebhookRoute = defineRoute({
  operationId: 'getWebhook',
  method: 'GET',
  path: '/v1/webhooks/{id}',
  tag: 'Webhooks',
  summary: 'Read a webhook subscription',
  description: 'With its monitoring fields; without the secret.',
  scope: 'read:webhooks',
  params: webhookIdParams,
  success: { status: 200, kind: 'one', schema: Webhook },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.webhooks.getWebhook({ org_id: principal.orgId, id: params.id }),
});
