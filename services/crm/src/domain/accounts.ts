import { AppError, iso, isoOrNull, type KeysetPosition, notFound } from '@crm/shared';
import { timingSafeEqual } from 'node:crypto';
import { CUSTOM_FIELD_ENTITIES, type CustomFieldEntity } from '../repository/custom-field.repository';
import { apiKeyView } from './api-keys';

export { CUSTOM_FIELD_ENTITIES };
import type { CrmDeps } from './deps';

/** last_used_at is written at most once a minute per key: authentication stays a read on the hot path. */
const TOUCH_INTERVAL_MS = 60_000;

export async function authenticate(deps: CrmDeps, keyHash: string) {
  const key = /^[0-9a-f]{64}$/.test(keyHash) ? await deps.apiKeys.findByHash(keyHash) : null;
  const now = deps.now();
  const matches = key !== null && timingSafeEqual(Buffer.from(key.hash, 'hex'), Buffer.from(keyHash, 'hex'));
  if (!key || !matches || key.revoked_at || (key.expires_at && key.expires_at <= now)) throw new AppError('INVALID_API_KEY');
  const organization = await deps.organizations.getById(key.org_id);
  if (!organization) throw new AppError('INVALID_API_KEY');
  if (!key.last_used_at || now.getTime() - key.last_used_at.getTime() > TOUCH_INTERVAL_MS) {
    deps.apiKeys.touch(key.id, now).catch((error: unknown) => deps.logger.warn({ err: error }, 'could not record key use'));
  }
  return { org_id: key.org_id, key_id: key.id, scopes: key.scopes, plan: organization.plan };
}

/** Of `keyIds`, those that no longer authenticate (revoked, expired or unknown): the webhooks service pauses their subscriptions. */
export async function listInactiveKeys(deps: CrmDeps, keyIds: string[]): Promise<string[]> {
  const ids = [...new Set(keyIds)].slice(0, 10_000);
  const active = new Set(await deps.apiKeys.activeIds(ids, deps.now()));
  return ids.filter((id) => !active.has(id));
}

/** #89. Without a key id (internal callers: the agents service reads the timezone) only the organization. */
export async function getMe(deps: CrmDeps, orgId: string, keyId: string) {
  if (!keyId) {
    const organization = await deps.organizations.getById(orgId);
    if (!organization) throw notFound('organization');
    const { id, name, plan, currency, timezone } = organization;
    return { organization: { id, name, plan, currency, timezone }, api_key: null };
  }
  const [organization, key] = await Promise.all([deps.organizations.getById(orgId), deps.apiKeys.getById(orgId, keyId)]);
  if (!organization || !key) throw notFound('API key');
  return {
    organization: {
      id: organization.id,
      name: organization.name,
      plan: organization.plan,
      currency: organization.currency,
      timezone: organization.timezone,
    },
    api_key: apiKeyView(key, deps.now()),
  };
}

export async function listMembers(deps: CrmDeps, orgId: string, limit: number, after?: KeysetPosition) {
  const [page, total] = await Promise.all([deps.members.listActive(orgId, { limit, after }), deps.members.countActive(orgId)]);
  const items = page.items.map((member) => ({
    id: member.id,
    name: member.name,
    email: member.email,
    role: member.role,
    is_owner: member.is_owner,
    is_active: member.is_active,
    last_active_at: isoOrNull(member.last_active_at),
    avatar_url: member.avatar_url,
  }));
  return { items, hasMore: page.hasMore, next: page.next, total };
}

export async function listCustomFields(
  deps: CrmDeps,
  orgId: string,
  entity: CustomFieldEntity | undefined,
  limit: number,
  after?: KeysetPosition,
) {
  const [page, total] = await Promise.all([deps.customFields.list(orgId, entity, { limit, after }), deps.customFields.count(orgId)]);
  const items = page.items.map((field) => ({
    id: field.id,
    key: field.key,
    label: field.label,
    type: field.type,
    entity: field.entity,
    options: field.options,
    default_value: field.default_value ?? null,
    required: field.required,
    is_active: field.is_active,
    created_at: iso(field.created_at),
    updated_at: iso(field.updated_at),
  }));
  return { items, hasMore: page.hasMore, next: page.next, total };
}

/** Tags ordered by count descending, then name; the position is the rank in that order (count, name). */
export async function listTags(deps: CrmDeps, orgId: string, limit: number, after?: KeysetPosition) {
  const all = await deps.tags.counts(orgId);
  const afterCount = Number(after?.value);
  const start = after ? indexAfter(all, (tag) => tag.count < afterCount || (tag.count === afterCount && tag.name > after.id)) : 0;
  const items = all.slice(start, start + limit);
  const hasMore = start + limit < all.length;
  const last = items[items.length - 1];
  return { items, hasMore, next: hasMore && last ? { value: last.count, id: last.name } : undefined, total: all.length };
}

function indexAfter<T>(rows: T[], isAfter: (row: T) => boolean): number {
  const index = rows.findIndex(isAfter);
  return index === -1 ? rows.length : index;
}
