import { defineRoute } from '../../http/route';
import { webhookIdParams } from './params';

export const deleteWebhookRoute = defineRoute({
  operationId: 'deleteWebhook',
  method: 'DELETE',
  path: '/v1/webhooks/{id}',
  tag: 'Webhooks',
  summary: 'Delete a webhook subscription',
  description: 'Pending retries are dropped with the delivery log.',
  scope: 'write:webhooks',
  params: webhookIdParams,
  success: { status: 204, kind: 'none' },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.webhooks.deleteWebhook({ org_id: principal.orgId, id: params.id }),
});
