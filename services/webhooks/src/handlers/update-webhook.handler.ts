import type { WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { updateWebhook } from '../domain/subscriptions';
import { requireId } from './request';

export const updateWebhookHandler: RpcHandler<WebhookServiceServer, 'updateWebhook', WebhookDeps> = async (deps, request) =>
  updateWebhook(deps, request.org_id, requireId('webhook', request.id), request.body ?? {}, request.key_id ?? null);
