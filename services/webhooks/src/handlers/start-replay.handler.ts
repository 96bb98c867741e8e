import type { EventLogServiceServer } from '@crm/proto/gen/webhooks/v1/events';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { startReplay } from '../domain/replays';
import { requireId } from './request';

export const startReplayHandler: RpcHandler<EventLogServiceServer, 'startReplay', WebhookDeps> = async (deps, request) =>
  startReplay(deps, request.org_id, requireId('webhook', request.webhook_id), {
    since: request.since,
    ...(request.until ? { until: request.until } : {}),
    ...(request.types.length > 0 ? { types: request.types } : {}),
  });
