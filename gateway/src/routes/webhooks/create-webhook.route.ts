import { createWebhookBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { WebhookWithSecret } from '../../schemas/webhook.schemas';

export const createWebhookRoute = defineRoute({
  operationId: 'createWebhook',
  method: 'POST',
  path: '/v1/webhooks',
  tag: 'Webhooks',
  summary: 'Subscribe to events',
  description:
    'url must be https on a public host (loopback, private, link-local and metadata addresses are refused, unless the deployment allow-lists the host). events: kinds from GET /v1/webhooks/event-types. The answer carries the signing secret, shown only here and by rotate-secret.',
  scope: 'write:webhooks',
  body: createWebhookBody,
  success: { status: 201, kind: 'one', schema: WebhookWithSecret },
  errors: ['INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR'],
  handle: ({ body, principal, clients }) => clients.webhooks.createWebhook({ org_id: principal.orgId, id: '', body }),
});
