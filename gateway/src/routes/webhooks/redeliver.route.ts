import { defineRoute } from '../../http/route';
import { WebhookDelivery } from '../../schemas/webhook.schemas';
import { deliveryIdParams } from './params';

export const redeliverRoute = defineRoute({
  operationId: 'redeliverWebhookDelivery',
  method: 'POST',
  path: '/v1/webhooks/deliveries/{deliveryId}/redeliver',
  tag: 'Webhooks',
  summary: 'Send a delivery again',
  description:
    'A new delivery of the same event (same id, same body) with redelivery_of set, attempted within the call; also while the subscription is paused. Receivers deduplicate by the event id.',
  scope: 'write:webhooks',
  params: deliveryIdParams,
  success: { status: 200, kind: 'one', schema: WebhookDelivery },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.webhooks.redeliver({ org_id: principal.orgId, id: params.deliveryId }),
});
