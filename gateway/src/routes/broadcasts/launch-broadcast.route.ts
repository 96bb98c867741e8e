import { launchBroadcastBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Broadcast } from '../../schemas/broadcast.schemas';
import { broadcastIdParams, LAUNCH_ERRORS } from './params';

export const launchBroadcastRoute = defineRoute({
  operationId: 'launchBroadcast',
  method: 'POST',
  path: '/v1/broadcasts/{id}/launch',
  tag: 'Broadcasts',
  summary: 'Launch a broadcast',
  description: [
    'draft or scheduled → processing (202): the recipients are written once (pending, or excluded with a reason), then the broadcast is sending, paced by settings.sendProfile per number. message.sent is emitted for each message.',
    'Checks: a message (qrcode) or an APPROVED template (official), every number connected, and each number in warm-up within its daily limit counting what it sent in the last 24 h (WARMUP_LIMIT_EXCEEDED unless confirmWarmupOverride: true).',
  ].join('\n\n'),
  scope: 'write:broadcasts',
  params: broadcastIdParams,
  body: launchBroadcastBody,
  success: { status: 202, kind: 'one', schema: Broadcast },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', ...LAUNCH_ERRORS],
  handle: ({ params, body, principal, clients }) =>
    clients.broadcasts.launchBroadcast({ org_id: principal.orgId, id: params.id, body: body ?? {}, plan: principal.plan }),
});
