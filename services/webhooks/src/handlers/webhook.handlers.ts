import type { WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { AsyncService } from '@crm/shared';
import { DELIVERY_STATUSES, WEBHOOK_STATUSES } from '@crm/shared/schemas';
import { getDelivery, listDeliveries, redeliver, testWebhook } from '../domain/deliveries';
import type { WebhookDeps } from '../domain/deps';
import { listEventTypes } from '../domain/event-types';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateSecret, updateWebhook } from '../domain/subscriptions';
import { oneOf, pageInfo, pageOf, requireId } from './request';

/** gRPC WebhookService: maps messages to domain calls and back; the rules live in domain/. */
export function webhookHandlers(deps: WebhookDeps): AsyncService<WebhookServiceServer> {
  return {
    listWebhooks: async (request) => {
      const result = await listWebhooks(deps, requireId('organization', request.org_id), {
        ...pageOf(request.page),
        status: oneOf(WEBHOOK_STATUSES, request.status),
      });
      return { items: result.items, page: pageInfo(result) };
    },
    createWebhook: async (request) => createWebhook(deps, requireId('organization', request.org_id), request.body ?? {}),
    listEventTypes: async (request) => {
      const result = listEventTypes(pageOf(request.page));
      return { items: result.items, page: pageInfo(result) };
    },
    getWebhook: async (request) => getWebhook(deps, request.org_id, requireId('webhook', request.id)),
    updateWebhook: async (request) => updateWebhook(deps, request.org_id, requireId('webhook', request.id), request.body ?? {}),
    deleteWebhook: async (request) => {
      await deleteWebhook(deps, request.org_id, requireId('webhook', request.id));
      return {};
    },
    listDeliveries: async (request) => {
      const filter = request.filter;
      const result = await listDeliveries(deps, request.org_id, requireId('webhook', request.webhook_id), {
        ...pageOf(request.page),
        status: oneOf(DELIVERY_STATUSES, filter?.status),
        event_type: filter?.event_type ?? null,
        created_after: filter?.created_after ?? null,
      });
      return { items: result.items, page: pageInfo(result) };
    },
    rotateSecret: async (request) => rotateSecret(deps, request.org_id, requireId('webhook', request.id), request.body ?? {}),
    testWebhook: async (request) => testWebhook(deps, request.org_id, requireId('webhook', request.id), request.body ?? {}),
    getDelivery: async (request) => getDelivery(deps, request.org_id, requireId('delivery', request.id)),
    redeliver: async (request) => redeliver(deps, request.org_id, requireId('delivery', request.id)),
  };
}
