import { AppError, insufficientScopes, type Scope } from '@crm/shared/core';
import { createHash } from 'node:crypto';
import type { Clients } from '../clients';
import type { Principal } from '../http/route';

const KEY_PREFIX = 'sk_live_';

type Cached = { principal: Principal | null; expiresAt: number };

/** The key of an `Authorization: Bearer sk_live_…` header, or the error code that refuses the header. */
function keyOf(header: string | undefined): { key: string } | { refused: 'MISSING_API_KEY' | 'INVALID_API_KEY_FORMAT' } {
  if (!header || header.trim() === '') return { refused: 'MISSING_API_KEY' };
  const match = /^Bearer\s+(\S*)\s*$/i.exec(header.trim());
  const key = match?.[1] ?? '';
  if (match && key === '') return { refused: 'MISSING_API_KEY' };
  if (!key.startsWith(KEY_PREFIX)) return { refused: 'INVALID_API_KEY_FORMAT' };
  return { key };
}

const hashOf = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/**
 * Resolves `Authorization: Bearer sk_live_…` to a principal. Only the SHA-256 of the key leaves this process;
 * answers (including refusals) are cached for a few seconds, and requests that arrive while a key is being looked
 * up wait for that one lookup: a burst of requests (a thousand connections opening at once) costs one lookup.
 * `peek` answers from the cache alone, for the admission decisions taken before a request is read (early-admission.ts).
 */
export function createAuthenticator(clients: Pick<Clients, 'accounts'>, cacheTtlMs: number) {
  const cache = new Map<string, Cached>();
  const lookups = new Map<string, Promise<Principal | null>>();

  async function lookUp(hash: string): Promise<Principal | null> {
    let principal: Principal | null = null;
    try {
      const answer = await clients.accounts.authenticate({ key_hash: hash });
      principal = { orgId: answer.org_id, keyId: answer.key_id, scopes: answer.scopes, plan: answer.plan };
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'INVALID_API_KEY')) throw error;
    }
    if (cacheTtlMs > 0) {
      if (cache.size > 10_000) cache.clear();
      cache.set(hash, { principal, expiresAt: Date.now() + cacheTtlMs });
    }
    return principal;
  }

  /** The one lookup of `hash` under way, or a new one. */
  function lookUpOnce(hash: string): Promise<Principal | null> {
    let lookup = lookups.get(hash);
    if (!lookup) {
      lookup = lookUp(hash).finally(() => lookups.delete(hash));
      lookups.set(hash, lookup);
    }
    return lookup;
  }

  /**
   * The cached answer for `hash` while it is fresh, else undefined. A key in use is looked up again in the background
   * in the second half of its time, so it never expires while requests keep coming (they would all wait for the
   * lookup, unattributed); a revoked key still stops being accepted within the cache's time.
   */
  function cachedAnswer(hash: string): Principal | null | undefined {
    const cached = cache.get(hash);
    const now = Date.now();
    if (!cached || cached.expiresAt <= now) return undefined;
    if (cached.principal && cached.expiresAt - now < cacheTtlMs / 2) lookUpOnce(hash).catch(() => undefined);
    return cached.principal;
  }

  async function authenticate(header: string | undefined): Promise<Principal> {
    const parsed = keyOf(header);
    if ('refused' in parsed) throw new AppError(parsed.refused);
    const hash = hashOf(parsed.key);
    const cached = cachedAnswer(hash);
    // null: a key known to be unknown (cached too, so a repeated bad key costs no lookup).
    const principal = cached === undefined ? await lookUpOnce(hash) : cached;
    if (!principal) throw new AppError('INVALID_API_KEY');
    return principal;
  }

  /**
   * Whom `header`'s key belonged to when this process last verified it, however long ago (no lookup, no error): for
   * counting and refusing a request before it is read (early-admission.ts), never for serving it — `authenticate`
   * still verifies every admitted request. So a key whose cached answer has just expired, with its lookup under way,
   * still counts against its organization instead of against the requests of unknown keys. Starts that lookup.
   */
  function peek(header: string | undefined): Principal | undefined {
    const parsed = keyOf(header);
    if ('refused' in parsed) return undefined;
    const hash = hashOf(parsed.key);
    const cached = cache.get(hash);
    if (cached?.principal && cached.expiresAt <= Date.now()) lookUpOnce(hash).catch(() => undefined);
    return cached ? (cachedAnswer(hash) ?? cached.principal ?? undefined) : undefined;
  }

  return Object.assign(authenticate, { peek });
}

export type Authenticate = ReturnType<typeof createAuthenticator>;

export function requireScope(principal: Principal, scope: Scope | null): void {
  if (scope) requireScopes(principal, [scope]);
}

/** Every scope of `required`, or INSUFFICIENT_SCOPES naming the ones the key lacks. */
export function requireScopes(principal: Principal, required: readonly Scope[]): void {
  const refused = insufficientScopes(required, principal.scopes);
  if (refused) throw refused;
}
