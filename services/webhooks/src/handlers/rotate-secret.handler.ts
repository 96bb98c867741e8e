import type { WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { rotateSecret } from '../domain/subscriptions';
import { requireId } from './request';

export const rotateSecretHandler: RpcHandler<WebhookServiceServer, 'rotateSecret', WebhookDeps> = async (deps, request) =>
  rotateSecret(deps, request.org_id, requireId('webhook', request.id), request.body ?? {});
