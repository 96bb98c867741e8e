import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { Replay } from '../../schemas/replay.schemas';

export const getReplayRoute = defineRoute({
  operationId: 'getWebhookReplay',
  method: 'GET',
  path: '/v1/webhooks/{id}/replays/{replayId}',
  tag: 'Webhooks',
  summary: 'Follow a replay',
  description: 'Its status and counts: matched (queued so far), delivered, failed.',
  scope: 'read:webhooks',
  params: z.object({ id: idOf('webhook'), replayId: idOf('replay') }),
  success: { status: 200, kind: 'one', schema: Replay },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) =>
    clients.events.getReplay({ org_id: principal.orgId, webhook_id: params.id, id: params.replayId }),
});
