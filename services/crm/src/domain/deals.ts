import { isId, newId, newEvent, notFound } from '@crm/shared';
import { createDealBody, parseOrThrow, updateDealBody } from '@crm/shared/schemas';
import type { DealQuery, DealRecord } from '../repository/deal.repository';
import { previousOf, viewDeal, viewDeals, type DealView } from './deal.view';
import { checkDealLinks, placementFor } from './deal-references';
import { writeDeal } from './deal-write';
import { checkCustomFields } from './custom-field-values';
import type { CrmDeps } from './deps';

export type DealListQuery = Omit<DealQuery, 'stage_ids'> & { stage_id?: string | null };

/** #20, #8 and #19: the filters of the list; meta.total counts the live deals of the organization or the parent. */
export async function listDeals(deps: CrmDeps, orgId: string, query: DealListQuery) {
  const { stage_id: stage, ...rest } = query;
  // A sub-collection of a parent that is not in the organization answers NOT_FOUND, not an empty list.
  if (query.contact_id && !(await deps.contacts.getById(orgId, query.contact_id))) throw notFound('contact');
  if (query.company_id && !(await deps.links.companyExists(orgId, query.company_id))) throw notFound('company');
  const stageIds = stage ? await stageIdsFor(deps, orgId, stage) : null;
  const [page, total] = await Promise.all([deps.deals.list(orgId, { ...rest, stage_ids: stageIds }), deps.deals.countLive(orgId, query)]);
  return { items: await viewDeals(deps, orgId, page.items), hasMore: page.hasMore, next: page.next, total };
}

/** The `stage_id` filter takes a stage id, or a stage name (spec §4 rule 7), matched case-insensitively. */
async function stageIdsFor(deps: CrmDeps, orgId: string, stage: string): Promise<string[]> {
  // String(): isId narrows its argument, and a non-id string is a stage name, not "never".
  if (isId('stage', String(stage))) return [stage];
  const wanted = stage.trim().toLowerCase();
  const funnels = await deps.funnels.listAll(orgId);
  return funnels.flatMap((funnel) =>
    funnel.stages.filter((candidate) => candidate.name.toLowerCase() === wanted).map((candidate) => candidate.id),
  );
}

export async function getDeal(deps: CrmDeps, orgId: string, id: string): Promise<DealView> {
  const record = await deps.deals.getById(orgId, id);
  if (!record) throw notFound('deal');
  return viewDeal(deps, orgId, record);
}

export async function createDeal(deps: CrmDeps, orgId: string, rawBody: unknown): Promise<DealView> {
  const body = parseOrThrow(createDealBody, rawBody);
  const { funnel, stage } = await placementFor(deps, orgId, body.funnel_id, body.stage_id);
  await checkDealLinks(deps, orgId, body);
  const customFields = await checkCustomFields(deps, orgId, 'deal', body.custom_fields ?? {}, 'create');
  const organization = await deps.organizations.getById(orgId);

  const now = deps.now();
  const record: DealRecord = {
    id: newId('deal'),
    org_id: orgId,
    title: body.title,
    description: body.description ?? null,
    value: body.value,
    currency: organization?.currency ?? 'USD',
    status: 'open',
    funnel_id: funnel.id,
    stage_id: stage.id,
    contact_ids: body.contact_ids ?? [],
    company_id: body.company_id ?? null,
    assigned_to: body.assigned_to ?? null,
    expected_close_date: body.expected_close_date ? new Date(body.expected_close_date) : null,
    probability: body.probability ?? null,
    lost_reason: null,
    closed_at: null,
    tags: body.tags ?? [],
    custom_fields: customFields,
    deleted_at: null,
    created_at: now,
    updated_at: now,
  };
  const view = await viewDeal(deps, orgId, record);
  const events = [newEvent(orgId, 'deal.created', { object: view }, now)];
  if (record.contact_ids.length === 0) await deps.deals.insert(record, events);
  // Its contacts' stored deals_count move in the same transaction.
  else
    await deps.transaction(async (session) => {
      await deps.deals.insert(record, events, session);
      await deps.contacts.adjustCounts(orgId, record.contact_ids, { deals_count: 1 }, session);
    });
  return view;
}

/** Fields PATCH compares, and the name each one has in the read shape (for `previous`). */
const UPDATABLE = {
  contact_ids: 'contacts',
  company_id: 'company',
  title: 'title',
  description: 'description',
  value: 'value',
  assigned_to: 'assigned_to',
  expected_close_date: 'expected_close_date',
  probability: 'probability',
  tags: 'tags',
  custom_fields: 'custom_fields',
} as const satisfies Partial<Record<keyof DealRecord, keyof DealView>>;
type Updatable = keyof typeof UPDATABLE;

/**
 * PATCH /v1/deals/{id} (spec §4 rules 1–5). Every reference is checked before the one write, so a request with
 * an invalid link changes nothing. Emits deal.updated on any change and deal.assigned when assigned_to changed.
 */
export async function updateDeal(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<DealView> {
  const body = parseOrThrow(updateDealBody, rawBody);
  await checkDealLinks(deps, orgId, body);
  const customFields = body.custom_fields && (await checkCustomFields(deps, orgId, 'deal', body.custom_fields, 'replace'));
  const wanted: Partial<DealRecord> = Object.fromEntries(
    Object.entries({
      ...body,
      custom_fields: customFields,
      expected_close_date:
        body.expected_close_date === undefined ? undefined : body.expected_close_date && new Date(body.expected_close_date),
    }).filter(([, value]) => value !== undefined),
  );

  return writeDeal(deps, orgId, id, async (current) => {
    const changed = (Object.keys(UPDATABLE) as Updatable[]).filter(
      (field) => field in wanted && JSON.stringify(wanted[field]) !== JSON.stringify(current[field]),
    );
    if (changed.length === 0) return null;
    const at = deps.now();
    return {
      set: { ...Object.fromEntries(changed.map((field) => [field, wanted[field]])), updated_at: at },
      events: ({ view, before }) => [
        newEvent(
          orgId,
          'deal.updated',
          {
            object: view,
            previous: previousOf(
              before,
              changed.map((field) => UPDATABLE[field]),
            ),
          },
          at,
        ),
        ...(changed.includes('assigned_to')
          ? [newEvent(orgId, 'deal.assigned', { object: view, previous: previousOf(before, ['assigned_to']) }, at)]
          : []),
      ],
    };
  });
}

/** Soft delete: the deal leaves lists and totals; the record is kept. */
export async function deleteDeal(deps: CrmDeps, orgId: string, id: string): Promise<void> {
  await writeDeal(deps, orgId, id, async () => {
    const at = deps.now();
    return { set: { deleted_at: at, updated_at: at }, events: () => [newEvent(orgId, 'deal.deleted', { object: { id } }, at)] };
  });
}
