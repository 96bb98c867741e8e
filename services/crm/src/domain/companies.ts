import {
  AppError,
  invalidReference,
  isDuplicateKeyError,
  newId,
  newEvent,
  notFound,
  type PlannedChange,
  type Revised,
  writeRevision,
} from '@crm/shared';
import { createCompanyBody, parseOrThrow, updateCompanyBody, type CreateCompanyBody, type UpdateCompanyBody } from '@crm/shared/schemas';
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
  return insertCompany(deps, orgId, parseOrThrow(createCompanyBody, rawBody), newId('company'));
}

/**
 * Inserts a new company with `id` and its company.created event, claiming its external_id first. A duplicate id
 * (batch upsert's derived ids) is thrown as it is: batch upsert then matches again.
 */
export async function insertCompany(deps: CrmDeps, orgId: string, body: CreateCompanyBody, id: string): Promise<CompanyView> {
  // Every reference is checked before anything is written.
  await checkAssignee(deps, orgId, body.assigned_to);
  const customFields = await checkCustomFields(deps, orgId, 'company', body.custom_fields ?? {}, 'create');

  const now = deps.now();
  const record: CompanyRecord = {
    id,
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
    external_id: body.external_id ?? null,
  };
  await claimExternalId(deps, orgId, id, record.external_id);
  try {
    const view = await viewCompany(deps, orgId, record);
    await deps.companies.insert(record, [newEvent(orgId, 'company.created', { object: view }, now)]);
    return view;
  } catch (error) {
    // A concurrent insert of the same id holds this claim too: it is the winner's now.
    if (!(isDuplicateKeyError(error) && (await deps.companies.getById(orgId, id))))
      await releaseExternalId(deps, orgId, id, record.external_id);
    throw error;
  }
}

export async function updateCompany(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<CompanyView> {
  return (await applyCompanyUpdate(deps, orgId, id, parseOrThrow(updateCompanyBody, rawBody))).view;
}

/** PATCH semantics on a parsed body; `changed` tells whether anything was written (batch upsert's `unchanged`). */
export async function applyCompanyUpdate(
  deps: CrmDeps,
  orgId: string,
  id: string,
  body: UpdateCompanyBody,
): Promise<{ view: CompanyView; changed: boolean }> {
  await checkAssignee(deps, orgId, body.assigned_to);
  const customFields = body.custom_fields && (await checkCustomFields(deps, orgId, 'company', body.custom_fields, 'replace'));
  const { custom_fields: _customFields, ...fields } = body;

  let changed = false;
  const view = await writeCompany(deps, orgId, id, async (current) => {
    const next: CompanyRecord = { ...current, ...definedFields(fields), ...(customFields ? { custom_fields: customFields } : {}) };
    const changedFields = COMPARED_FIELDS.filter((field) => JSON.stringify(current[field] ?? null) !== JSON.stringify(next[field] ?? null));
    changed = changedFields.length > 0;
    if (!changed) return null;
    const at = deps.now();
    const previous = await previousValues(deps, orgId, current, changedFields);
    return {
      set: { ...Object.fromEntries(changedFields.map((field) => [field, next[field]])), updated_at: at },
      events: (view) => [newEvent(orgId, 'company.updated', { object: view, previous }, at)],
    };
  });
  return { view, changed };
}

/** external_id is unique among the organization's live companies, through a claim (identity.repository.ts). */
async function claimExternalId(deps: CrmDeps, orgId: string, companyId: string, externalId: string | null | undefined): Promise<void> {
  if (!externalId) return;
  const holder = await deps.companyIdentities.claim(
    orgId,
    'external_id',
    externalId,
    companyId,
    async (holderId) => (await deps.companies.getById(orgId, holderId)) !== null,
  );
  if (holder)
    throw new AppError('DUPLICATE_COMPANY', 'Another company already has this external_id.', { field: 'external_id', existing_id: holder });
}

async function releaseExternalId(deps: CrmDeps, orgId: string, companyId: string, externalId: string | null | undefined): Promise<void> {
  if (externalId) await deps.companyIdentities.release(orgId, 'external_id', externalId, companyId);
}

/** Soft delete: the record must outlive the relay's publication of its embedded company.deleted event. */
export async function deleteCompany(deps: CrmDeps, orgId: string, id: string): Promise<void> {
  let deleted: CompanyRecord | undefined;
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
    deleted = current;
    return { set: { deleted_at: at, updated_at: at }, events: () => [newEvent(orgId, 'company.deleted', { object: { id } }, at)] };
  });
  // The external_id of a deleted company becomes free for a new company.
  if (deleted) await releaseExternalId(deps, orgId, id, deleted.external_id);
}

/** assigned_to must be an active member of the organization; null unassigns. */
async function checkAssignee(deps: CrmDeps, orgId: string, memberId: string | null | undefined): Promise<void> {
  if (memberId && !(await deps.members.getActive(orgId, memberId))) throw invalidReference('assigned_to', memberId);
}

/**
 * Read, plan, write conditionally on the revision read (the storage kit's writeRevision). A null plan changes
 * nothing. A new external_id is claimed before the write; the old one is freed once the change is stored.
 */
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
    write: async (current, set, events) => {
      const changesExternalId = 'external_id' in set && set.external_id !== (current.external_id ?? null);
      if (changesExternalId) await claimExternalId(deps, orgId, id, set.external_id);
      try {
        await deps.companies.updateAtRevision(orgId, id, current.rev, set, events);
      } catch (error) {
        if (changesExternalId) await releaseExternalId(deps, orgId, id, set.external_id);
        throw error;
      }
      if (changesExternalId) await releaseExternalId(deps, orgId, id, current.external_id);
    },
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
  'external_id',
] as const;
type ComparedField = (typeof COMPARED_FIELDS)[number];

/** `previous` holds the old values in the read shape: assigned_to as {id, name}. */
async function previousValues(
  deps: CrmDeps,
  orgId: string,
  current: CompanyRecord,
  changed: ComparedField[],
): Promise<Record<string, unknown>> {
  const previous: Record<string, unknown> = Object.fromEntries(changed.map((field) => [field, current[field] ?? null]));
  if (changed.includes('assigned_to') && current.assigned_to) {
    const members = await deps.members.getMany(orgId, [current.assigned_to]);
    previous.assigned_to = { id: current.assigned_to, name: members.get(current.assigned_to)?.name ?? '' };
  }
  return previous;
}

function definedFields<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}
