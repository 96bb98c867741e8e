import type { EventLogServiceServer } from '@crm/proto/gen/webhooks/v1/events';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { getEvent } from '../domain/event-log';
import { requireId } from './request';

export const getEventHandler: RpcHandler<EventLogServiceServer, 'getEvent', WebhookDeps> = async (deps, request) =>
  getEvent(deps, request.org_id, requireId('event', request.id));
