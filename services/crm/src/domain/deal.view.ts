import { iso, isoOrNull } from '@crm/shared';
import type { DealObject } from '@crm/shared/events';
import type { DealRecord } from '../repository/deal.repository';
import type { CrmDeps } from './deps';

export type DealView = DealObject;

type ViewDeps = Pick<CrmDeps, 'funnels' | 'members' | 'contacts' | 'links' | 'dealLinks'>;

/**
 * Renders deals as the API shows them: funnel, stage, contacts, company and assignee as {id, name}, and the real
 * notes_count, in a fixed number of queries for any page size. Names are read on every render, so renames show
 * at once. Soft-deleted contacts drop out of `contacts`.
 */
export async function viewDeals(deps: ViewDeps, orgId: string, records: DealRecord[]): Promise<DealView[]> {
  if (records.length === 0) return [];
  const [funnels, members, contacts, companies, notes] = await Promise.all([
    deps.funnels.listAll(orgId),
    deps.members.getMany(
      orgId,
      records.flatMap((record) => (record.assigned_to ? [record.assigned_to] : [])),
    ),
    deps.contacts.getMany(
      orgId,
      records.flatMap((record) => record.contact_ids),
    ),
    deps.links.companyNames(
      orgId,
      records.flatMap((record) => (record.company_id ? [record.company_id] : [])),
    ),
    deps.dealLinks.notesByDeal(
      orgId,
      records.map((record) => record.id),
    ),
  ]);
  const funnelNames = new Map(funnels.map((funnel) => [funnel.id, funnel.name]));
  const stageNames = new Map(funnels.flatMap((funnel) => funnel.stages.map((stage) => [stage.id, stage.name] as const)));
  const contactNames = new Map(contacts.map((contact) => [contact.id, contact.name]));

  return records.map((record) => ({
    id: record.id,
    title: record.title,
    description: record.description,
    value: record.value,
    currency: record.currency,
    status: record.status,
    funnel: { id: record.funnel_id, name: funnelNames.get(record.funnel_id) ?? '' },
    stage: { id: record.stage_id, name: stageNames.get(record.stage_id) ?? '' },
    contacts: record.contact_ids.flatMap((id) => {
      const name = contactNames.get(id);
      return name === undefined ? [] : [{ id, name }];
    }),
    company: record.company_id ? { id: record.company_id, name: companies.get(record.company_id) ?? '' } : null,
    assigned_to: record.assigned_to ? { id: record.assigned_to, name: members.get(record.assigned_to)?.name ?? '' } : null,
    expected_close_date: isoOrNull(record.expected_close_date),
    probability: record.probability,
    lost_reason: record.lost_reason,
    closed_at: isoOrNull(record.closed_at),
    tags: record.tags,
    custom_fields: record.custom_fields,
    notes_count: notes.get(record.id) ?? 0,
    created_at: iso(record.created_at),
    updated_at: iso(record.updated_at),
  }));
}

export async function viewDeal(deps: ViewDeps, orgId: string, record: DealRecord): Promise<DealView> {
  const [view] = await viewDeals(deps, orgId, [record]);
  if (!view) throw new Error('viewDeals returned nothing for one record');
  return view;
}

/** `previous` of an event: the old values of the changed fields, by their read-shape names. */
export function previousOf<K extends keyof DealView>(before: DealView, keys: K[]): Pick<DealView, K> {
  return Object.fromEntries(keys.map((key) => [key, before[key]])) as Pick<DealView, K>;
}
