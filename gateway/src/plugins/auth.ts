import { AppError, type Scope } from '@crm/shared/core';
import { createHash } from 'node:crypto';
import type { Clients } from '../clients';
import type { Principal } from '../http/route';

const KEY_PREFIX = 'sk_live_';

type Cached = { principal: Principal | null; expiresAt: number };

/**
 * Resolves `Authorization: Bearer sk_live_…` to a principal. Only the SHA-256 of the key leaves this process;
 * answers (including refusals) are cached for a few seconds so a burst of requests costs one lookup.
 */
export function createAuthenticator(clients: Pick<Clients, 'accounts'>, cacheTtlMs: number) {
  const cache = new Map<string, Cached>();

  return async function authenticate(header: string | undefined): Promise<Principal> {
    if (!header || header.trim() === '') throw new AppError('MISSING_API_KEY');
    const match = /^Bearer\s+(\S*)\s*$/i.exec(header.trim());
    const key = match?.[1] ?? '';
    if (match && key === '') throw new AppError('MISSING_API_KEY');
    if (!key.startsWith(KEY_PREFIX)) throw new AppError('INVALID_API_KEY_FORMAT');

    const hash = createHash('sha256').update(key, 'utf8').digest('hex');
    const now = Date.now();
    const cached = cache.get(hash);
    if (cached && cached.expiresAt > now) {
      if (!cached.principal) throw new AppError('INVALID_API_KEY');
      return cached.principal;
    }
    let principal: Principal | null = null;
    try {
      const answer = await clients.accounts.authenticate({ key_hash: hash });
      principal = { orgId: answer.org_id, keyId: answer.key_id, scopes: answer.scopes, plan: answer.plan };
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'INVALID_API_KEY')) throw error;
    }
    if (cacheTtlMs > 0) {
      if (cache.size > 10_000) cache.clear();
      cache.set(hash, { principal, expiresAt: now + cacheTtlMs });
    }
    if (!principal) throw new AppError('INVALID_API_KEY');
    return principal;
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;

export function requireScope(principal: Principal, scope: Scope | null): void {
  if (scope) requireScopes(principal, [scope]);
}

/** Every scope of `required`, or INSUFFICIENT_SCOPES naming the ones the key lacks. */
export function requireScopes(principal: Principal, required: readonly Scope[]): void {
  const missing = required.filter((scope) => !principal.scopes.includes(scope));
  if (missing.length === 0) return;
  throw new AppError(
    'INSUFFICIENT_SCOPES',
    `This request needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which the API key lacks.`,
    {
      required_scopes: [...required],
      missing_scopes: missing,
      your_scopes: principal.scopes,
    },
  );
}
