import { AppError, invalidReference, newId, newEvent, notFound, type PlannedChange, type Revised, writeRevision } from '@crm/shared';
import { createCompanyBody, parseOrThrow, updateCompanyBody } from '@crm/shared/schemas';
import type { CompanyQuery, CompanyRecord } from '../repository/company.repository';
import { viewCompanies, viewCompany, type CompanyView } from './company.view';
import { checkCustomFields } from './custom-field-values';
import type { CrmDeps } from './deps';

export async function listCompanies(deps: CrmDeps, orgId: string, query: CompanyQuery) {
  const [page, total] = await Promise.all([deps.companies.list(orgId, query), deps.companies.countLive(orgId)]);
  return { items: await viewCompanies(deps, orgId, page.items), hasMore: page.hasMore, next: page.next, total };
}

export async function getCompany(deps: CrmDeps, orgId: string, id: string): Promise<CompanyView> {
  return viewCompany(deps, orgId, await requireCompany(deps, orgId, id));
}

export async function requireCompany(deps: CrmDeps, orgId: string, id: string): Promise<Revised<CompanyRecord>> {
  const record = await deps.companies.getById(orgId, id);
  if (!record) throw notFound('company');
  return record;
}

export async function createCompany(deps: CrmDeps, orgId: string, rawBody: unknown): Promise<CompanyView> {
  const body = parseOrThrow(createCompanyBody, rawBody);
  // Every reference is checked before anything is written.
  await checkAssignee(deps, orgId, body.assigned_to);
  const customFields = await checkCustomFields(deps, orgId, 'company', body.custom_fields ?? {}, 'create');

  const now = deps.now();
  const record: CompanyRecord = {
    id: newId('company'),
    org_id: orgId,
    name: body.name,
    email: body.email ?? null,
    phone: body.phone ?? null,
    website: body.website ?? null,
    sector: body.sector ?? null,
    size: body.size ?? null,
    city: body.city ?? null,
    state: body.state ?? null,
    assigned_to: body.assigned_to ?? null,
    tags: body.tags ?? [],
    custom_fields: customFields,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  const view = await viewCompany(deps, orgId, record);
  await deps.companies.insert(record, [newEvent(orgId, 'company.created', { object: view }, now)]);
  return view;
}

export async function updateCompany(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<CompanyView> {
  const body = parseOrThrow(updateCompanyBody, rawBody);
  await checkAssignee(deps, orgId, body.assigned_to);
  const customFields = body.custom_fields && (await checkCustomFields(deps, orgId, 'company', body.custom_fields, 'replace'));
  const { custom_fields: _customFields, ...fields } = body;

  return writeCompany(deps, orgId, id, async (current) => {
    const next: CompanyRecord = { ...current, ...definedFields(fields), ...(customFields ? { custom_fields: customFields } : {}) };
    const changed = COMPARED_FIELDS.filter((field) => JSON.stringify(current[field]) !== JSON.stringify(next[field]));
    if (changed.length === 0) return null;
    const at = deps.now();
    const previous = await previousValues(deps, orgId, current, changed);
    return {
      set: { ...Object.fromEntries(changed.map((field) => [field, next[field]])), updated_at: at },
      events: (view) => [newEvent(orgId, 'company.updated', { object: view, previous }, at)],
    };
  });
}

/** Soft delete: the record must outlive the relay's publication of its embedded company.deleted event. */
export async function deleteCompany(deps: CrmDeps, orgId: string, id: string): Promise<void> {
  await writeCompany(deps, orgId, id, async (current) => {
    const counts = (await deps.companyLinks.countsOf(orgId, [current.id])).get(current.id);
    if (counts && (counts.contacts_count > 0 || counts.deals_count > 0)) {
      throw new AppError(
        'COMPANY_HAS_LINKS',
        `The company still has ${counts.contacts_count} linked contact(s) and ${counts.deals_count} linked deal(s); unlink them first.`,
        {
          contacts_count: counts.contacts_count,
          deals_count: counts.deals_count,
        },
      );
    }
    const at = deps.now();
    return { set: { deleted_at: at, updated_at: at }, events: () => [newEvent(orgId, 'company.deleted', { object: { id } }, at)] };
  });
}

/** assigned_to must be an active member of the organization; null unassigns. */
async function checkAssignee(deps: CrmDeps, orgId: string, memberId: string | null | undefined): Promise<void> {
  if (memberId && !(await deps.members.getActive(orgId, memberId))) throw invalidReference('assigned_to', memberId);
}

/** Read, plan, write conditionally on the revision read (the storage kit's writeRevision). A null plan changes nothing. */
function writeCompany(
  deps: CrmDeps,
  orgId: string,
  id: string,
  plan: (current: CompanyRecord) => Promise<PlannedChange<CompanyRecord, CompanyView> | null>,
): Promise<CompanyView> {
  return writeRevision({
    read: () => requireCompany(deps, orgId, id),
    plan,
    view: (next) => viewCompany(deps, orgId, next),
    write: (current, set, events) => deps.companies.updateAtRevision(orgId, id, current.rev, set, events),
  });
}

const COMPARED_FIELDS = [
  'name',
  'email',
  'phone',
  'website',
  'sector',
  'size',
  'city',
  'state',
  'assigned_to',
  'tags',
  'custom_fields',
] as const;
type ComparedField = (typeof COMPARED_FIELDS)[number];

/** `previous` holds the old values in the read shape: assigned_to as {id, name}. */
async function previousValues(
  deps: CrmDeps,
  orgId: string,
  current: CompanyRecord,
  changed: ComparedField[],
): Promise<Record<string, unknown>> {
  const previous: Record<string, unknown> = Object.fromEntries(changed.map((field) => [field, current[field]]));
  if (changed.includes('assigned_to') && current.assigned_to) {
    const members = await deps.members.getMany(orgId, [current.assigned_to]);
    previous.assigned_to = { id: current.assigned_to, name: members.get(current.assigned_to)?.name ?? '' };
  }
  return previous;
}

function definedFields<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}
