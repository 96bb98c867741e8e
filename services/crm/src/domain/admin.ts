import { AppError, newId, randomToken } from '@crm/shared';
import { createHash } from 'node:crypto';
import type { CrmDeps } from './deps';
import { isScope, type Scope } from './scopes';
import { PLANS, type Plan } from '../repository/organization.repository';

export const API_KEY_PREFIX = 'sk_live_';

/** SHA-256 of the whole key: what is stored and looked up. The gateway hashes the same way. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

export async function createOrganization(deps: CrmDeps, input: { name: string; plan?: string; currency?: string; timezone?: string }) {
  const plan = (input.plan ?? 'pro') as Plan;
  if (!PLANS.includes(plan)) throw new AppError('VALIDATION_ERROR', `plan must be one of ${PLANS.join(', ')}`);
  const organization = {
    id: newId('organization'),
    name: input.name,
    plan,
    currency: input.currency ?? 'USD',
    timezone: input.timezone ?? 'UTC',
    created_at: deps.now(),
  };
  await deps.organizations.insert(organization);
  return organization;
}

export async function createMember(
  deps: CrmDeps,
  orgId: string,
  input: { name: string; email: string; role?: 'owner' | 'admin' | 'member' },
) {
  await requireOrganization(deps, orgId);
  const role = input.role ?? 'member';
  const member = {
    id: newId('member'),
    org_id: orgId,
    name: input.name,
    email: input.email.toLowerCase(),
    role,
    is_owner: role === 'owner',
    is_active: true,
    last_active_at: null,
    avatar_url: null,
    created_at: deps.now(),
  };
  await deps.members.insert(member);
  return member;
}

/** Creates a key and returns it in full, the only time it exists outside the caller's hands. */
export async function createApiKey(deps: CrmDeps, orgId: string, input: { name: string; scopes: string[]; expiresAt?: Date | null }) {
  await requireOrganization(deps, orgId);
  const unknown = input.scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0) throw new AppError('VALIDATION_ERROR', `unknown scopes: ${unknown.join(', ')}`);
  const key = `${API_KEY_PREFIX}${randomToken(40)}`;
  const record = {
    id: newId('apiKey'),
    org_id: orgId,
    name: input.name,
    hash: hashApiKey(key),
    prefix: key.slice(0, API_KEY_PREFIX.length + 4),
    scopes: [...new Set(input.scopes)] as Scope[],
    created_at: deps.now(),
    expires_at: input.expiresAt ?? null,
    revoked_at: null,
    last_used_at: null,
  };
  await deps.apiKeys.insert(record);
  return { key, id: record.id, prefix: record.prefix, scopes: record.scopes };
}

async function requireOrganization(deps: CrmDeps, orgId: string): Promise<void> {
  if (!(await deps.organizations.getById(orgId))) throw new AppError('NOT_FOUND', `Organization ${orgId} does not exist.`);
}
