import { updateWebhookBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Webhook } from '../../schemas/webhook.schemas';
import { requireKindScopes } from './kind-scopes';
import { webhookIdParams } from './params';

export const updateWebhookRoute = defineRoute({
  operationId: 'updateWebhook',
  method: 'PATCH',
  path: '/v1/webhooks/{id}',
  tag: 'Webhooks',
  summary: 'Update, pause or reactivate a webhook subscription',
  description:
    'Any of name, url, events, status. status: active reactivates a paused subscription, resets consecutive_failures and resumes its held retries; status: paused pauses it by hand. The key needs the read scope of every kind the subscription receives (after the change); it then answers for the subscription: a subscription paused because its key was revoked is reactivated by such a key.',
  scope: 'write:webhooks',
  params: webhookIdParams,
  body: updateWebhookBody,
  success: { status: 200, kind: 'one', schema: Webhook },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR'],
  handle: async ({ params, body, principal, clients }) => {
    const events = body.events ?? (await clients.webhooks.getWebhook({ org_id: principal.orgId, id: params.id })).events;
    requireKindScopes(principal, 'write:webhooks', events);
    return clients.webhooks.updateWebhook({ org_id: principal.orgId, id: params.id, body, key_id: principal.keyId });
  },
});
