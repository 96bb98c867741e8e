import type { WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { createWebhook } from '../domain/subscriptions';
import { requireId } from './request';

export const createWebhookHandler: RpcHandler<WebhookServiceServer, 'createWebhook', WebhookDeps> = async (deps, request) =>
  createWebhook(deps, requireId('organization', request.org_id), request.body ?? {}, request.key_id ?? null);
