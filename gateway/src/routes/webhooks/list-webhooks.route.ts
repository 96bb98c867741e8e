import { WEBHOOK_STATUSES } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { pageQuery } from '../../schemas/registry';
import { Webhook } from '../../schemas/webhook.schemas';

export const listWebhooksRoute = defineRoute({
  operationId: 'listWebhooks',
  method: 'GET',
  path: '/v1/webhooks',
  tag: 'Webhooks',
  summary: 'List webhook subscriptions',
  description: 'Newest first. Secrets are never listed.',
  scope: 'read:webhooks',
  query: z.object({ ...pageQuery, status: z.enum(WEBHOOK_STATUSES).optional() }),
  success: { status: 200, kind: 'list', schema: Webhook },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ query, principal, clients, page }) => clients.webhooks.listWebhooks({ org_id: principal.orgId, page, status: query.status }),
});
