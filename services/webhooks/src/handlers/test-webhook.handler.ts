import type { WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { testWebhook } from '../domain/deliveries';
import { requireId } from './request';

export const testWebhookHandler: RpcHandler<WebhookServiceServer, 'testWebhook', WebhookDeps> = async (deps, request) =>
  testWebhook(deps, request.org_id, requireId('webhook', request.id), request.body ?? {});
