import { defineRoute } from '../../http/route';
import { WebhookDelivery } from '../../schemas/webhook.schemas';
import { requireKindScopes } from './kind-scopes';
import { deliveryIdParams } from './params';

export const redeliverRoute = defineRoute({
  operationId: 'redeliverWebhookDelivery',
  method: 'POST',
  path: '/v1/webhooks/deliveries/{deliveryId}/redeliver',
  tag: 'Webhooks',
  summary: 'Send a delivery again',
  description:
    'A new delivery of the same event (same id, same body) with redelivery_of set, attempted within the call; also while the subscription is paused. Receivers deduplicate by the event id. The key also needs the read scope that guards the kind. The attempt waits at most WEBHOOK_MANUAL_TIMEOUT_MS (default 5 s); an organization has at most WEBHOOK_MANUAL_CONCURRENCY test sends and redeliveries in flight (default 4), RATE_LIMITED with Retry-After beyond.',
  scope: 'write:webhooks',
  params: deliveryIdParams,
  success: { status: 200, kind: 'one', schema: WebhookDelivery },
  errors: ['INVALID_ID', 'NOT_FOUND', 'RATE_LIMITED'],
  handle: async ({ params, principal, clients }) => {
    const original = await clients.webhooks.getDelivery({ org_id: principal.orgId, id: params.deliveryId });
    requireKindScopes(principal, 'write:webhooks', [original.delivery?.event_type ?? '']);
    return clients.webhooks.redeliver({ org_id: principal.orgId, id: params.deliveryId });
  },
});
