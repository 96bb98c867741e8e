import type { WebhookDeps } from './deps';

/** Of these key ids, the ones that no longer authenticate (revoked, expired or unknown): the CRM answers. */
export type InactiveKeys = (keyIds: string[]) => Promise<string[]>;

/**
 * Pauses the active subscriptions whose key (the one that created or last changed them) was revoked or expired,
 * with `paused_reason: api_key_revoked`: a subscription delivers only what a live key holding the read scopes of
 * its kinds chose to receive. A key that holds those scopes reactivates it with PATCH {status: active} and then
 * answers for it. Returns how many were paused.
 */
export async function pauseSubscriptionsOfInactiveKeys(
  deps: Pick<WebhookDeps, 'webhooks' | 'now' | 'logger'>,
  inactiveKeys: InactiveKeys,
  onPaused: (orgId: string, webhookId: string) => void,
): Promise<number> {
  const keyIds = await deps.webhooks.activeKeyIds();
  if (keyIds.length === 0) return 0;
  const inactive = await inactiveKeys(keyIds);
  if (inactive.length === 0) return 0;
  let paused = 0;
  for (const webhook of await deps.webhooks.activeOfKeys(inactive)) {
    if (!(await deps.webhooks.pauseIfActive(webhook.org_id, webhook.id, deps.now(), 'api_key_revoked'))) continue;
    paused += 1;
    onPaused(webhook.org_id, webhook.id);
    deps.logger.warn({ webhook: webhook.id, org_id: webhook.org_id }, 'webhook subscription paused: its API key was revoked');
  }
  return paused;
}

/** Runs the sweep every `intervalMs` (and once at start); a failed pass is logged and retried at the next tick. */
export function revokedKeySweeper(
  deps: Pick<WebhookDeps, 'webhooks' | 'now' | 'logger'>,
  inactiveKeys: InactiveKeys,
  onPaused: (orgId: string, webhookId: string) => void,
  intervalMs: number,
) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = pauseSubscriptionsOfInactiveKeys(deps, inactiveKeys, onPaused).catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'revoked-key sweep failed; retrying at the next tick'),
    );
  };
  return {
    start: () => {
      tick();
      timer = setInterval(() => void running.then(tick), intervalMs);
      timer.unref();
    },
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
