import { createWebhookBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { WebhookWithSecret } from '../../schemas/webhook.schemas';
import { requireKindScopes } from './kind-scopes';

export const createWebhookRoute = defineRoute({
  operationId: 'createWebhook',
  method: 'POST',
  path: '/v1/webhooks',
  tag: 'Webhooks',
  summary: 'Subscribe to events',
  description:
    'url must be https on a public host (loopback, private, link-local and metadata addresses are refused, unless the deployment allow-lists the host). events: kinds from GET /v1/webhooks/event-types. The key needs, besides write:webhooks, the read scope that guards each subscribed kind (x-scope of each event in the webhooks section; INSUFFICIENT_SCOPES names the missing ones): revoking the key later pauses the subscription (paused_reason api_key_revoked). An organization has at most WEBHOOK_MAX_SUBSCRIPTIONS subscriptions (default 25; WEBHOOK_LIMIT_EXCEEDED beyond). The answer carries the signing secret, shown only here and by rotate-secret.',
  scope: 'write:webhooks',
  body: createWebhookBody,
  success: { status: 201, kind: 'one', schema: WebhookWithSecret },
  errors: ['INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'WEBHOOK_LIMIT_EXCEEDED'],
  handle: ({ body, principal, clients }) => {
    requireKindScopes(principal, 'write:webhooks', body.events);
    return clients.webhooks.createWebhook({ org_id: principal.orgId, id: '', body, key_id: principal.keyId });
  },
});
