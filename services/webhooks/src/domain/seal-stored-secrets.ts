import type { WebhookDeps } from './deps';

/**
 * The one-pass migration run at every start: rows written before encryption (plaintext `whsec_…`) or sealed under a
 * retired key are sealed under the current key. Cheap when there is nothing to do (one projected scan). A row that
 * does not open (its key is missing from WEBHOOK_SECRETS_OLD_KEYS) is reported, not fatal: the other subscriptions
 * keep delivering while an operator adds the key back.
 */
export async function sealStoredSecrets(deps: Pick<WebhookDeps, 'webhooks' | 'logger'>): Promise<void> {
  const { sealed, unreadable } = await deps.webhooks.sealStoredSecrets();
  if (sealed > 0) deps.logger.info({ sealed }, 'sealed stored webhook secrets under the current key');
  if (unreadable.length > 0) {
    deps.logger.error(
      { webhooks: unreadable.slice(0, 20), count: unreadable.length },
      'webhook secrets that no configured key opens: add their key to WEBHOOK_SECRETS_OLD_KEYS',
    );
  }
}
