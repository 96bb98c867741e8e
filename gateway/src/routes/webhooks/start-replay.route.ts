import { replayBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Replay } from '../../schemas/replay.schemas';
import { requireKindScopes } from './kind-scopes';
import { webhookIdParams } from './params';

export const startReplayRoute = defineRoute({
  operationId: 'startWebhookReplay',
  method: 'POST',
  path: '/v1/webhooks/{id}/replay',
  tag: 'Webhooks',
  summary: 'Replay stored events to a subscription',
  description:
    'Starts a job that delivers the stored events (GET /v1/events) of [since, until) — until defaults to now, and a ' +
    'later until is now — that the subscription receives, narrowed to types when given, through the normal delivery ' +
    'engine (signing, retries, pausing). Each replay delivers each event once (then at-least-once, as any delivery); the job and its position ' +
    'are stored, so it resumes after a restart. Follow it with GET /v1/webhooks/{id}/replays/{replayId}; ' +
    'webhook.replay.completed is emitted when every delivery has its outcome. Honours Idempotency-Key. The key also ' +
    'needs the read scope that guards each kind replayed (types, else the kinds the subscription receives).',
  scope: 'write:webhooks',
  params: webhookIdParams,
  body: replayBody,
  success: { status: 202, kind: 'one', schema: Replay },
  errors: [
    'INVALID_ID',
    'NOT_FOUND',
    'INVALID_JSON',
    'UNKNOWN_FIELDS',
    'VALIDATION_ERROR',
    'IDEMPOTENCY_KEY_REUSED',
    'IDEMPOTENCY_KEY_IN_USE',
  ],
  idempotent: true,
  handle: async ({ params, body, principal, clients }) => {
    const kinds = body.types ?? (await clients.webhooks.getWebhook({ org_id: principal.orgId, id: params.id })).events;
    requireKindScopes(principal, 'write:webhooks', kinds);
    return clients.events.startReplay({
      org_id: principal.orgId,
      webhook_id: params.id,
      since: body.since,
      until: body.until,
      types: body.types ?? [],
    });
  },
});
