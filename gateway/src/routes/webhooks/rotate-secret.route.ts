import { rotateSecretBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { WebhookWithSecret } from '../../schemas/webhook.schemas';
import { webhookIdParams } from './params';

export const rotateSecretRoute = defineRoute({
  operationId: 'rotateWebhookSecret',
  method: 'POST',
  path: '/v1/webhooks/{id}/rotate-secret',
  tag: 'Webhooks',
  summary: 'Rotate the signing secret',
  description:
    'Returns the new secret, once. For overlap_hours (optional, 0–168, default 24) deliveries carry signatures from both the new and the replaced secret, so receivers can switch without downtime.',
  scope: 'write:webhooks',
  params: webhookIdParams,
  body: rotateSecretBody,
  success: { status: 200, kind: 'one', schema: WebhookWithSecret },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR'],
  handle: ({ params, body, principal, clients }) => clients.webhooks.rotateSecret({ org_id: principal.orgId, id: params.id, body }),
});
