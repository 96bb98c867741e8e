import type { WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { getDelivery } from '../domain/deliveries';
import { requireId } from './request';

export const getDeliveryHandler: RpcHandler<WebhookServiceServer, 'getDelivery', WebhookDeps> = async (deps, request) =>
  getDelivery(deps, request.org_id, requireId('delivery', request.id));
