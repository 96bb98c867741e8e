import type { WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { redeliver } from '../domain/deliveries';
import { requireId } from './request';

export const redeliverHandler: RpcHandler<WebhookServiceServer, 'redeliver', WebhookDeps> = async (deps, request) =>
  redeliver(deps, request.org_id, requireId('delivery', request.id));
