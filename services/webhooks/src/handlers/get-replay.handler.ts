import type { EventLogServiceServer } from '@crm/proto/gen/webhooks/v1/events';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { getReplay } from '../domain/replays';
import { requireId } from './request';

export const getReplayHandler: RpcHandler<EventLogServiceServer, 'getReplay', WebhookDeps> = async (deps, request) =>
  getReplay(deps, request.org_id, requireId('webhook', request.webhook_id), requireId('replay', request.id));
