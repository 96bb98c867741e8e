import type { WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { WEBHOOK_STATUSES } from '@crm/shared/schemas';
import { listWebhooks } from '../domain/subscriptions';
import { oneOf, pageInfo, pageOf, requireId } from './request';

export const listWebhooksHandler: RpcHandler<WebhookServiceServer, 'listWebhooks', WebhookDeps> = async (deps, request) => {
  const result = await listWebhooks(deps, requireId('organization', request.org_id), {
    ...pageOf(request.page),
    status: oneOf(WEBHOOK_STATUSES, request.status),
  });
  return { items: result.items, page: pageInfo(result) };
};
