import { updateWebhookBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Webhook } from '../../schemas/webhook.schemas';
import { webhookIdParams } from './params';

export const updateWebhookRoute = defineRoute({
  operationId: 'updateWebhook',
  method: 'PATCH',
  path: '/v1/webhooks/{id}',
  tag: 'Webhooks',
  summary: 'Update, pause or reactivate a webhook subscription',
  description:
    'Any of name, url, events, status. status: active reactivates a paused subscription, resets consecutive_failures and resumes its held retries; status: paused pauses it by hand.',
  scope: 'write:webhooks',
  params: webhookIdParams,
  body: updateWebhookBody,
  success: { status: 200, kind: 'one', schema: Webhook },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR'],
  handle: ({ params, body, principal, clients }) => clients.webhooks.updateWebhook({ org_id: principal.orgId, id: params.id, body }),
});
