import { AppError, newId, notFound, type PageRequest, retryOnConflict, type Revised, WriteConflict } from '@crm/shared';
import {
  createBroadcastBody,
  estimateAudienceBody,
  parseOrThrow,
  updateBroadcastBody,
  type BroadcastStatus,
  type UpdateBroadcastBody,
} from '@crm/shared/schemas';
import type { MessagingDeps } from '../deps';
import { countAudience } from './audience';
import { EMPTY_STATS, type BroadcastRecord } from '../../repository/broadcast.repository';
import { audienceRecord, checkContactIds, checkPlan, resolveInstances, resolveTemplate } from './configuration';
import { viewBroadcast, viewRecipient, type AudienceEstimateView, type BroadcastView } from './views';

/** Statuses in which a broadcast's configuration may change (#62) and in which it may be deleted (#63). */
const EDITABLE: readonly BroadcastStatus[] = ['draft', 'scheduled'];
const DELETABLE: readonly BroadcastStatus[] = ['draft', 'scheduled', 'completed', 'completed_with_errors', 'failed', 'cancelled'];

export async function requireBroadcast(deps: MessagingDeps, orgId: string, id: string): Promise<Revised<BroadcastRecord>> {
  const record = await deps.broadcasts.records.getById(orgId, id);
  if (!record) throw notFound('broadcast');
  return record;
}

/** Stats are counted again when a recipient changed since (or just before) the last count, at most twice a second. */
const RECOUNT_AFTER_MS = 500;
/** Counts within this time after a change are counted once more: replicas' clocks and in-flight writes may lag. */
const SETTLE_MS = 1_000;

/**
 * The broadcast with exact statistics: counted from its recipients whenever one changed since the last count.
 * Every recipient change marks the broadcast (one atomic $max), so a view is at most half a second behind
 * while it sends and exact once it is quiet, whichever replica applied the change and even if it crashed.
 */
export async function withFreshStats(deps: MessagingDeps, record: BroadcastRecord): Promise<BroadcastRecord> {
  const changed = record.recipients_changed_at?.getTime();
  const counted = record.stats_at?.getTime() ?? 0;
  const now = deps.now();
  if (changed === undefined || changed + SETTLE_MS < counted || now.getTime() - counted < RECOUNT_AFTER_MS) return record;
  const stats = await deps.broadcasts.recipients.countStats(record.id);
  await deps.broadcasts.records.saveStats(record.id, stats, now);
  return { ...record, stats, stats_at: now };
}

export const invalidStatus = (record: BroadcastRecord, action: string, allowed: readonly BroadcastStatus[]): AppError =>
  new AppError('INVALID_STATUS', `A ${record.status} broadcast cannot be ${action}; allowed from: ${allowed.join(', ')}.`, {
    status: record.status,
    allowed,
  });

export async function listBroadcasts(
  deps: MessagingDeps,
  orgId: string,
  query: PageRequest & { status?: string | null; created_after?: string | null; created_before?: string | null },
) {
  const [page, total] = await Promise.all([deps.broadcasts.records.list(orgId, query), deps.broadcasts.records.countAll(orgId)]);
  const items = await Promise.all(page.items.map((record) => withFreshStats(deps, record)));
  return { items: items.map(viewBroadcast), hasMore: page.hasMore, next: page.next, total };
}

export async function getBroadcast(deps: MessagingDeps, orgId: string, id: string): Promise<BroadcastView> {
  return viewBroadcast(await withFreshStats(deps, await requireBroadcast(deps, orgId, id)));
}

/** #59: a `draft`, every reference checked before anything is stored. */
export async function createBroadcast(deps: MessagingDeps, orgId: string, plan: string, rawBody: unknown): Promise<BroadcastView> {
  const body = parseOrThrow(createBroadcastBody, rawBody);
  checkPlan(plan, body.settings?.sendProfile);
  const instances = await resolveInstances(deps, orgId, body.chatappInstanceIds);
  const cloudTemplate = body.cloudTemplate ? await resolveTemplate(deps, orgId, instances, body.cloudTemplate) : null;
  const audience = audienceRecord(body.audience);
  await checkContactIds(deps, orgId, audience);
  const now = deps.now();
  const record: BroadcastRecord = {
    id: newId('broadcast'),
    org_id: orgId,
    name: body.name,
    description: body.description ?? null,
    status: 'draft',
    instances,
    audience,
    message: body.message
      ? { type: body.message.type, content: body.message.content ?? null, media_url: body.message.mediaUrl ?? null }
      : null,
    cloud_template: cloudTemplate,
    settings: { send_profile: body.settings?.sendProfile ?? 'conservative' },
    scheduled_at: null,
    started_at: null,
    completed_at: null,
    stats: EMPTY_STATS,
    error: null,
    warmup_override: false,
    materialized: false,
    recipients_changed_at: null,
    stats_at: null,
    created_at: now,
    updated_at: now,
  };
  await deps.broadcasts.records.insert(record);
  return viewBroadcast(record);
}

/**
 * #62: only in `draft` or `scheduled`. The references a change touches are checked again (numbers, template,
 * contact list), on the merged configuration: a new number set must still suit the stored template, and so on.
 */
export async function updateBroadcast(
  deps: MessagingDeps,
  orgId: string,
  plan: string,
  id: string,
  rawBody: unknown,
): Promise<BroadcastView> {
  const body = parseOrThrow(updateBroadcastBody, rawBody);
  return retryOnConflict(async () => {
    const current = await requireBroadcast(deps, orgId, id);
    if (!EDITABLE.includes(current.status)) throw invalidStatus(current, 'changed', EDITABLE);
    if (body.settings?.sendProfile) checkPlan(plan, body.settings.sendProfile);

    const set = await changesOf(deps, orgId, body, current);
    const updated = await deps.broadcasts.records.transition(id, EDITABLE, set, current.rev);
    if (!updated) {
      // Launched, cancelled or changed by someone else since it was read: answer from what it is now.
      const now = await requireBroadcast(deps, orgId, id);
      if (!EDITABLE.includes(now.status)) throw invalidStatus(now, 'changed', EDITABLE);
      throw new WriteConflict('broadcast');
    }
    return viewBroadcast(updated);
  });
}

/** The fields a PATCH changes, its references resolved and checked against the broadcast as read. */
async function changesOf(
  deps: MessagingDeps,
  orgId: string,
  body: UpdateBroadcastBody,
  current: BroadcastRecord,
): Promise<Partial<BroadcastRecord>> {
  const set: Partial<BroadcastRecord> = { updated_at: deps.now() };
  if (body.name !== undefined) set.name = body.name;
  if (body.description !== undefined) set.description = body.description;
  if (body.settings !== undefined) set.settings = { send_profile: body.settings.sendProfile ?? 'conservative' };
  if (body.message !== undefined)
    set.message = body.message && {
      type: body.message.type,
      content: body.message.content ?? null,
      media_url: body.message.mediaUrl ?? null,
    };
  const instances = body.chatappInstanceIds ? await resolveInstances(deps, orgId, body.chatappInstanceIds) : current.instances;
  if (body.chatappInstanceIds) set.instances = instances;
  if (body.cloudTemplate !== undefined)
    set.cloud_template = body.cloudTemplate && (await resolveTemplate(deps, orgId, instances, body.cloudTemplate));
  else if (body.chatappInstanceIds && current.cloud_template) {
    const stored = current.cloud_template;
    set.cloud_template = await resolveTemplate(deps, orgId, instances, {
      templateId: stored.template_id,
      language: stored.language,
      variables: stored.variables.map((v) => ({
        key: v.key,
        component: v.component,
        sourceType: v.source_type,
        sourceKey: v.source_key ?? undefined,
        fallback: v.fallback ?? undefined,
        value: v.value ?? undefined,
      })),
    });
  }
  if (body.audience) {
    set.audience = audienceRecord(body.audience);
    await checkContactIds(deps, orgId, set.audience);
  }
  return set;
}

/** #63: refused while it sends or is paused (cancel first); removes its recipient log with it. */
export async function deleteBroadcast(deps: MessagingDeps, orgId: string, id: string): Promise<void> {
  const current = await requireBroadcast(deps, orgId, id);
  if (!DELETABLE.includes(current.status)) throw invalidStatus(current, 'deleted (cancel it first)', DELETABLE);
  if (!(await deps.broadcasts.records.delete(orgId, id, DELETABLE))) {
    const now = await requireBroadcast(deps, orgId, id);
    throw invalidStatus(now, 'deleted (cancel it first)', DELETABLE);
  }
  await Promise.all([deps.broadcasts.recipients.deleteForBroadcast(id), deps.broadcasts.lanes.deleteForBroadcast(id)]);
}

/**
 * #60: how many contacts a broadcast with this audience would reach, and how many the exclusion rules leave out,
 * by reason. The marketing opt-out applies only when a marketing `cloudTemplate` is given (spec §4 rule 1).
 */
export async function estimateAudience(deps: MessagingDeps, orgId: string, rawBody: unknown): Promise<AudienceEstimateView> {
  const body = parseOrThrow(estimateAudienceBody, rawBody);
  const instances = body.chatappInstanceIds ? await resolveInstances(deps, orgId, body.chatappInstanceIds) : null;
  let marketing = false;
  if (body.cloudTemplate) {
    const template = await deps.templates.getById(orgId, body.cloudTemplate.templateId);
    if (
      !template ||
      template.language !== body.cloudTemplate.language ||
      (instances && !instances.some((i) => i.id === template.instance_id))
    )
      throw new AppError(
        'TEMPLATE_NOT_FOUND',
        `Template ${body.cloudTemplate.templateId} (${body.cloudTemplate.language}) is not a template of these numbers in this language.`,
        {
          template_id: body.cloudTemplate.templateId,
          language: body.cloudTemplate.language,
        },
      );
    marketing = template.category === 'marketing';
  }
  const audience = audienceRecord(body.audience);
  // As on create: a contact id that is not the organization's is refused, not silently left out of the count.
  await checkContactIds(deps, orgId, audience);
  const count = await countAudience(deps, orgId, { audience, marketing });
  const excluded = count.excluded.marketing_opt_out + count.excluded.no_chatapp + count.excluded.duplicate;
  return { estimated_count: count.reached, estimated_exclusions: excluded, exclusions_by_reason: count.excluded };
}

/** #69: the recipient log in send order (the audience's order), optionally by status. */
export async function listRecipients(
  deps: MessagingDeps,
  orgId: string,
  broadcastId: string,
  query: PageRequest & { status?: string | null },
) {
  const broadcast = await requireBroadcast(deps, orgId, broadcastId);
  const page = await deps.broadcasts.recipients.list(broadcastId, query);
  return {
    items: page.items.map(viewRecipient),
    hasMore: page.hasMore,
    next: page.next,
    total: broadcast.stats.total + broadcast.stats.excluded,
  };
}
