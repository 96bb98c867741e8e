import type { WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { getWebhook } from '../domain/subscriptions';
import { requireId } from './request';

export const getWebhookHandler: RpcHandler<WebhookServiceServer, 'getWebhook', WebhookDeps> = async (deps, request) =>
  getWebhook(deps, request.org_id, requireId('webhook', request.id));
