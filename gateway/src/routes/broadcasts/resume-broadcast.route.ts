import { launchBroadcastBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Broadcast } from '../../schemas/broadcast.schemas';
import { broadcastIdParams } from './params';

export const resumeBroadcastRoute = defineRoute({
  operationId: 'resumeBroadcast',
  method: 'POST',
  path: '/v1/broadcasts/{id}/resume',
  tag: 'Broadcasts',
  summary: 'Resume a broadcast',
  description:
    'paused → processing (202), then sending. Every number must be connected; the warm-up limit is checked on what is left (confirmWarmupOverride: true forces it).',
  scope: 'write:broadcasts',
  params: broadcastIdParams,
  body: launchBroadcastBody,
  success: { status: 202, kind: 'one', schema: Broadcast },
  errors: [
    'INVALID_ID',
    'NOT_FOUND',
    'INVALID_JSON',
    'UNKNOWN_FIELDS',
    'VALIDATION_ERROR',
    'INVALID_STATUS',
    'WARMUP_LIMIT_EXCEEDED',
    'CHANNEL_DISCONNECTED',
  ],
  handle: ({ params, body, principal, clients }) =>
    clients.broadcasts.resumeBroadcast({ org_id: principal.orgId, id: params.id, body: body ?? {}, plan: principal.plan }),
});
