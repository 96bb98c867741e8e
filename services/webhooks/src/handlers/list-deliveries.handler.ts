import type { WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { DELIVERY_STATUSES } from '@crm/shared/schemas';
import { listDeliveries } from '../domain/deliveries';
import { oneOf, pageInfo, pageOf, requireId } from './request';

export const listDeliveriesHandler: RpcHandler<WebhookServiceServer, 'listDeliveries', WebhookDeps> = async (deps, request) => {
  const filter = request.filter;
  const result = await listDeliveries(deps, request.org_id, requireId('webhook', request.webhook_id), {
    ...pageOf(request.page),
    status: oneOf(DELIVERY_STATUSES, filter?.status),
    event_type: filter?.event_type ?? null,
    created_after: filter?.created_after ?? null,
  });
  return { items: result.items, page: pageInfo(result) };
};
