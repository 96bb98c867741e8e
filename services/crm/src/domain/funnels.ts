import { AppError, type PageRequest, newId, notFound, type Revised, writeRevision } from '@crm/shared';
import { createFunnelBody, parseOrThrow, updateFunnelBody, type StageInput } from '@crm/shared/schemas';
import type { FunnelRecord, StageRecord } from '../repository/funnel.repository';
import type { CrmDeps } from './deps';
import { requireFunnelSlot } from './funnel-limits';
import { viewFunnel, viewFunnels, type FunnelView } from './funnel.view';

export async function listFunnels(deps: CrmDeps, orgId: string, options: PageRequest & { includeArchived: boolean }) {
  // meta.total counts the organization's funnels without the include_archived filter (spec §8 rule 4).
  const [page, total] = await Promise.all([deps.funnels.list(orgId, options), deps.funnels.count(orgId, { includeArchived: true })]);
  return { items: await viewFunnels(deps, orgId, page.items), hasMore: page.hasMore, next: page.next, total };
}

export async function getFunnel(deps: CrmDeps, orgId: string, id: string): Promise<FunnelView> {
  return viewFunnel(deps, orgId, await requireFunnel(deps, orgId, id));
}

export async function requireFunnel(deps: Pick<CrmDeps, 'funnels'>, orgId: string, id: string): Promise<Revised<FunnelRecord>> {
  const funnel = await deps.funnels.getById(orgId, id);
  if (!funnel) throw notFound('funnel');
  return funnel;
}

/** The first funnel of an organization becomes its default, whatever `is_default` says. */
export async function createFunnel(deps: CrmDeps, orgId: string, rawBody: unknown): Promise<FunnelView> {
  const body = parseOrThrow(createFunnelBody, rawBody);
  await requireFunnelSlot(deps, orgId);
  const [all, currentDefault] = await Promise.all([deps.funnels.listAll(orgId), deps.funnels.getDefault(orgId)]);
  const now = deps.now();
  const record: FunnelRecord = {
    id: newId('funnel'),
    org_id: orgId,
    name: body.name,
    position: Math.max(0, ...all.map((funnel) => funnel.position)) + 1,
    default_at: body.is_default === true || !currentDefault ? now : null,
    is_archived: false,
    stages: body.stages.map((stage) => newStage(stage, now)),
    created_at: now,
    updated_at: now,
  };
  await deps.funnels.insert(record);
  return viewFunnel(deps, orgId, record);
}

export async function updateFunnel(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<FunnelView> {
  const body = parseOrThrow(updateFunnelBody, rawBody);
  const updated = await writeFunnel(deps, orgId, id, async (current) => {
    const isDefault = (await deps.funnels.getDefault(orgId))?.id === current.id;
    const archived = body.is_archived ?? current.is_archived;
    if (archived && isDefault)
      throw validation('is_archived', 'the default funnel cannot be archived; make another funnel the default first');
    if (archived && body.is_default)
      throw validation('is_default', 'an archived funnel cannot be the default; unarchive it in the same request');
    if (current.is_archived && body.is_archived === false) await requireFunnelSlot(deps, orgId);
    const set: Partial<FunnelRecord> = {};
    if (body.name !== undefined && body.name !== current.name) set.name = body.name;
    if (body.is_archived !== undefined && body.is_archived !== current.is_archived) set.is_archived = body.is_archived;
    if (body.is_default && !isDefault) set.default_at = deps.now();
    return set;
  });
  if (body.position !== undefined) await moveFunnel(deps, orgId, updated.id, body.position);
  return viewFunnel(deps, orgId, await requireFunnel(deps, orgId, id));
}

/**
 * Puts a funnel at a 1-based board position (clamped to the end) and renumbers the others 1..n. Board order
 * is cosmetic, so the renumbering is a series of plain writes; a concurrent move can leave a tie, which lists
 * break by id and the next move repairs.
 */
async function moveFunnel(deps: CrmDeps, orgId: string, id: string, position: number): Promise<void> {
  const all = await deps.funnels.listAll(orgId);
  const moving = all.find((funnel) => funnel.id === id);
  if (!moving) return;
  const others = all.filter((funnel) => funnel.id !== id);
  others.splice(Math.min(position, all.length) - 1, 0, moving);
  for (const [index, funnel] of others.entries()) {
    if (funnel.position !== index + 1) await deps.funnels.setPosition(orgId, funnel.id, index + 1);
  }
}

/**
 * Read, plan, write conditionally on the revision read, retry when another writer (of any replica) won: two
 * concurrent stage edits of one funnel never lose each other's change.
 */
export function writeFunnel(
  deps: Pick<CrmDeps, 'funnels' | 'now'>,
  orgId: string,
  id: string,
  plan: (current: FunnelRecord) => Promise<Partial<FunnelRecord>>,
): Promise<FunnelRecord> {
  return writeRevision({
    read: () => requireFunnel(deps, orgId, id),
    plan: async (current) => {
      const set = await plan(current);
      return Object.keys(set).length > 0 ? { set: { ...set, updated_at: deps.now() } } : null;
    },
    view: (next) => next,
    write: (current, set) => deps.funnels.updateAtRevision(orgId, id, current.rev, set),
  });
}

export function newStage(input: StageInput, now: Date): StageRecord {
  return {
    id: newId('stage'),
    name: input.name,
    color: input.color ?? null,
    probability: input.probability ?? null,
    created_at: now,
    updated_at: now,
  };
}

export const validation = (field: string, issue: string): AppError =>
  new AppError('VALIDATION_ERROR', `Invalid request: ${field}: ${issue}.`, { fields: [{ field, issue }] });

const DEMO_STAGES: StageInput[] = [
  { name: 'Lead', color: '#9CA3AF', probability: 10 },
  { name: 'Qualified', color: '#3B82F6', probability: 30 },
  { name: 'Proposal', color: '#F59E0B', probability: 60 },
  { name: 'Negotiation', color: '#8B5CF6', probability: 80 },
];

/** The demo organization's default funnel, so that deals can be created without a funnel_id. */
export async function seedDefaultFunnel(deps: CrmDeps, orgId: string): Promise<FunnelView> {
  return createFunnel(deps, orgId, { name: 'Sales pipeline', stages: DEMO_STAGES, is_default: true });
}
