import { defineRoute } from '../../http/route';
import { WebhookDeliveryDetail } from '../../schemas/webhook.schemas';
import { requireKindScopes } from './kind-scopes';
import { deliveryIdParams } from './params';

export const getDeliveryRoute = defineRoute({
  operationId: 'getWebhookDelivery',
  method: 'GET',
  path: '/v1/webhooks/deliveries/{deliveryId}',
  tag: 'Webhooks',
  summary: 'Read a delivery with its request',
  description:
    'The delivery, the headers of its last attempt and the exact raw body that was signed. The body carries the event data, so the key also needs the read scope that guards its kind.',
  scope: 'read:webhooks',
  params: deliveryIdParams,
  success: { status: 200, kind: 'one', schema: WebhookDeliveryDetail },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: async ({ params, principal, clients }) => {
    const detail = await clients.webhooks.getDelivery({ org_id: principal.orgId, id: params.deliveryId });
    requireKindScopes(principal, 'read:webhooks', [detail.delivery?.event_type ?? '']);
    return { ...detail.delivery, request_headers: detail.request_headers, request_body: detail.request_body };
  },
});
