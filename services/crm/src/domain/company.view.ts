import { iso } from '@crm/shared';
import type { CompanyObject } from '@crm/shared/events';
import type { CompanyRecord } from '../repository/company.repository';
import type { CrmDeps } from './deps';

export type CompanyView = CompanyObject;

/** Renders companies as the API shows them: member names and real link counters, in 3 queries for any page. */
export async function viewCompanies(
  deps: Pick<CrmDeps, 'members' | 'companyLinks'>,
  orgId: string,
  records: CompanyRecord[],
): Promise<CompanyView[]> {
  const memberIds = records.flatMap((record) => (record.assigned_to ? [record.assigned_to] : []));
  const [members, counts] = await Promise.all([
    deps.members.getMany(orgId, memberIds),
    deps.companyLinks.countsOf(
      orgId,
      records.map((record) => record.id),
    ),
  ]);
  return records.map((record) => {
    const linked = counts.get(record.id);
    return {
      id: record.id,
      name: record.name,
      email: record.email,
      phone: record.phone,
      website: record.website,
      sector: record.sector,
      size: record.size,
      city: record.city,
      state: record.state,
      assigned_to: record.assigned_to ? { id: record.assigned_to, name: members.get(record.assigned_to)?.name ?? '' } : null,
      tags: record.tags,
      custom_fields: record.custom_fields,
      external_id: record.external_id ?? null,
      contacts_count: linked?.contacts_count ?? 0,
      deals_count: linked?.deals_count ?? 0,
      total_deals_value: linked?.total_deals_value ?? 0,
      created_at: iso(record.created_at),
      updated_at: iso(record.updated_at),
    };
  });
}

export async function viewCompany(
  deps: Pick<CrmDeps, 'members' | 'companyLinks'>,
  orgId: string,
  record: CompanyRecord,
): Promise<CompanyView> {
  const [view] = await viewCompanies(deps, orgId, [record]);
  if (!view) throw new Error('viewCompanies returned nothing for one record');
  return view;
}
