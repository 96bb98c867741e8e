import { iso, isoOrNull } from '@crm/shared';
import type { TaskObject } from '@crm/shared/events';
import type { TaskRecord } from '../repository/task.repository';
import type { CrmDeps } from './deps';

export type TaskView = TaskObject;

const idsOf = (records: TaskRecord[], field: 'assigned_to' | 'contact_id' | 'deal_id' | 'company_id') =>
  records.flatMap((record) => (record[field] ? [record[field]] : []));

/** Renders tasks with the names of what they point to, in 4 queries for any page. */
export async function viewTasks(deps: Pick<CrmDeps, 'members' | 'refs'>, orgId: string, records: TaskRecord[]): Promise<TaskView[]> {
  const [members, contacts, deals, companies] = await Promise.all([
    deps.members.getMany(orgId, idsOf(records, 'assigned_to')),
    deps.refs.contactNames(orgId, idsOf(records, 'contact_id')),
    deps.refs.dealTitles(orgId, idsOf(records, 'deal_id')),
    deps.refs.companyNames(orgId, idsOf(records, 'company_id')),
  ]);
  return records.map((record) => ({
    id: record.id,
    title: record.title,
    description: record.description,
    type: record.type,
    priority: record.priority,
    status: record.status,
    due_at: isoOrNull(record.due_at),
    completed_at: isoOrNull(record.completed_at),
    assigned_to: record.assigned_to ? { id: record.assigned_to, name: members.get(record.assigned_to)?.name ?? '' } : null,
    contact: record.contact_id ? { id: record.contact_id, name: contacts.get(record.contact_id) ?? '' } : null,
    deal: record.deal_id ? { id: record.deal_id, title: deals.get(record.deal_id) ?? '' } : null,
    company: record.company_id ? { id: record.company_id, name: companies.get(record.company_id) ?? '' } : null,
    created_at: iso(record.created_at),
    updated_at: iso(record.updated_at),
  }));
}

export async function viewTask(deps: Pick<CrmDeps, 'members' | 'refs'>, orgId: string, record: TaskRecord): Promise<TaskView> {
  const [view] = await viewTasks(deps, orgId, [record]);
  if (!view) throw new Error('viewTasks returned nothing for one record');
  return view;
}
