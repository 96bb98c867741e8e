import { AppError, insufficientScopes, iso, isoOrNull, type KeysetPosition } from '@crm/shared';
import type { ApiKeyRecord } from '../repository/api-key.repository';
import type { CrmDeps } from './deps';

/** GET /v1/api-keys: the organization's keys, newest first, revoked and expired ones included; never a hash. */
export async function listApiKeys(deps: CrmDeps, orgId: string, limit: number, after?: KeysetPosition) {
  const [page, total] = await Promise.all([deps.apiKeys.listPage(orgId, { limit, after }), deps.apiKeys.count(orgId)]);
  const now = deps.now();
  return { items: page.items.map((key) => apiKeyView(key, now)), hasMore: page.hasMore, next: page.next, total };
}

/** A key as the API shows it (GET /v1/me, GET /v1/api-keys). */
export function apiKeyView(key: ApiKeyRecord, now: Date) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    created_at: iso(key.created_at),
    last_used_at: isoOrNull(key.last_used_at),
    expires_at: isoOrNull(key.expires_at),
    revoked_at: isoOrNull(key.revoked_at),
    status: key.revoked_at ? 'revoked' : key.expires_at && key.expires_at <= now ? 'expired' : 'active',
  };
}

/**
 * Revokes a key of the organization (it stops authenticating within the gateways' key cache time). Asked through
 * the API (`callerScopes`: the asking key's scopes), a key that holds a scope the asking key lacks is refused with
 * INSUFFICIENT_SCOPES: a key never takes away one that can do more than it can. The operator's CLI passes none.
 */
export async function revokeApiKey(deps: CrmDeps, orgId: string, keyId: string, callerScopes?: readonly string[]): Promise<void> {
  const noActiveKey = () => new AppError('NOT_FOUND', 'This organization has no active API key with this id.');
  if (callerScopes) {
    const key = await deps.apiKeys.getById(orgId, keyId);
    if (!key || key.revoked_at) throw noActiveKey();
    const refused = insufficientScopes(key.scopes, callerScopes, 'Revoking this key needs');
    if (refused) throw refused;
  }
  if (!(await deps.apiKeys.revoke(orgId, keyId, deps.now()))) throw noActiveKey();
}
