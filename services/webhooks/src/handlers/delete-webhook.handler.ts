import type { WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { deleteWebhook } from '../domain/subscriptions';
import { requireId } from './request';

export const deleteWebhookHandler: RpcHandler<WebhookServiceServer, 'deleteWebhook', WebhookDeps> = async (deps, request) => {
  await deleteWebhook(deps, request.org_id, requireId('webhook', request.id));
  return {};
};
