import {
  AppError,
  invalidReference,
  isDuplicateKeyError,
  newId,
  newEvent,
  notFound,
  type OutboxEntry,
  type PlannedChange,
  writeRevision,
} from '@crm/shared';
import {
  addContactTagsBody,
  createContactBody,
  parseOrThrow,
  updateContactBody,
  type CreateContactBody,
  type UpdateContactBody,
} from '@crm/shared/schemas';
import type { ContactQuery, ContactRecord, ContactSort } from '../repository/contact.repository';
import type { IdentityKind } from '../repository/identity.repository';
import { DETAIL_DEALS, eventObject, viewContact, viewContactDetail, viewContacts, type ContactView } from './contact.view';
import { checkCustomFields } from './custom-field-values';
import type { CrmDeps } from './deps';
import { planAllows } from './plans';

/** The orders of GET /v1/contacts. */
export const CONTACT_SORTS = ['created_at', 'updated_at', 'name'] as const satisfies readonly ContactSort[];

export async function listContacts(deps: CrmDeps, orgId: string, query: ContactQuery) {
  // GET /v1/companies/{id}/contacts: the company must be live here, and meta.total counts its contacts (catalogue §1).
  const companyId = query.company_id;
  if (companyId && !(await deps.links.companyExists(orgId, companyId))) throw notFound('company');
  const count = companyId ? deps.contacts.countByCompany(orgId, companyId) : deps.contacts.countLive(orgId);
  const [page, total] = await Promise.all([deps.contacts.list(orgId, query), count]);
  return { items: await viewContacts(deps, orgId, page.items), hasMore: page.hasMore, next: page.next, total };
}

export async function getContact(deps: CrmDeps, orgId: string, id: string): Promise<ContactView> {
  // The contact and what links to it in one command; an absent contact is looked at again (merged, or gone).
  const { record, linked } = await deps.contacts.getByIdWith(orgId, id, deps.links.detailBranches(orgId, id, DETAIL_DEALS));
  if (!record) return viewContactDetail(deps, orgId, await requireContact(deps, orgId, id));
  return viewContactDetail(deps, orgId, record, await deps.links.detailOf(orgId, linked));
}

/** A live contact; a contact folded into another by a merge answers NOT_FOUND naming that one (details.merged_into). */
export async function requireContact(deps: CrmDeps, orgId: string, id: string) {
  const record = await deps.contacts.getById(orgId, id);
  if (record) return record;
  const into = await deps.contacts.mergedInto(orgId, id);
  if (into) throw new AppError('NOT_FOUND', `The contact was merged into ${into}; read that contact instead.`, { merged_into: into });
  throw notFound('contact');
}

export async function createContact(deps: CrmDeps, orgId: string, rawBody: unknown): Promise<ContactView> {
  return insertContact(deps, orgId, parseOrThrow(createContactBody, rawBody), newId('contact'));
}

/**
 * Inserts a new contact with `id`, claiming its e-mail, phone and external_id first, with its contact.created event.
 * A duplicate id (batch upsert's derived ids) is thrown as it is: batch upsert then matches again.
 */
export async function insertContact(deps: CrmDeps, orgId: string, body: CreateContactBody, id: string): Promise<ContactView> {
  if (body.company_id && !(await deps.links.companyExists(orgId, body.company_id))) throw invalidReference('company_id', body.company_id);
  const customFields = await checkCustomFields(deps, orgId, 'contact', body.custom_fields ?? {}, 'create');

  const now = deps.now();
  const record: ContactRecord = {
    id,
    org_id: orgId,
    name: body.name,
    email: body.email ?? null,
    phone: body.phone ?? null,
    photoapp_username: null,
    chatapp_jid: null,
    socialmsg_psid: null,
    socialmsg_name: null,
    source: body.source,
    avatar_url: null,
    company_id: body.company_id ?? null,
    tags: body.tags ?? [],
    custom_fields: customFields,
    funnel_stage: null,
    last_message_at: null,
    messages_count: 0,
    created_at: now,
    updated_at: now,
    deleted_at: null,
    external_id: body.external_id ?? null,
  };
  const claimed = await claimIdentities(deps, record, identitiesOf(record));
  try {
    const view = await viewContact(deps, orgId, record, { created: true });
    await deps.contacts.insert(record, [newEvent(orgId, 'contact.created', { object: eventObject(view) }, now)]);
    return view;
  } catch (error) {
    // A concurrent insert of the same id (batch upsert's derived ids) holds these claims too: they are its now.
    if (!(isDuplicateKeyError(error) && (await deps.contacts.getById(orgId, id)))) await releaseIdentities(deps, record, claimed);
    throw error;
  }
}

export async function updateContact(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<ContactView> {
  return (await applyContactUpdate(deps, orgId, id, parseOrThrow(updateContactBody, rawBody))).view;
}

/** PATCH semantics on a parsed body; `changed` tells whether anything was written (batch upsert's `unchanged`). */
export async function applyContactUpdate(
  deps: CrmDeps,
  orgId: string,
  id: string,
  body: UpdateContactBody,
): Promise<{ view: ContactView; changed: boolean }> {
  if (body.funnel_stage !== undefined) await requirePlanFeature(deps, orgId, 'contact_funnel_stage');
  if (body.company_id && !(await deps.links.companyExists(orgId, body.company_id))) throw invalidReference('company_id', body.company_id);
  const customFields = body.custom_fields && (await checkCustomFields(deps, orgId, 'contact', body.custom_fields, 'replace'));

  let changed = false;
  const view = await writeContact(deps, orgId, id, async (current) => {
    const next: ContactRecord = {
      ...current,
      ...definedFields({
        name: body.name,
        email: body.email,
        phone: body.phone,
        company_id: body.company_id,
        tags: body.tags,
        funnel_stage: body.funnel_stage,
        external_id: body.external_id,
      }),
      ...(customFields ? { custom_fields: customFields } : {}),
    };
    const fields = changedFields(current, next);
    changed = fields.length > 0;
    if (!changed) return null;
    next.updated_at = deps.now();
    return {
      set: { ...Object.fromEntries(fields.map((field) => [field, next[field]])), updated_at: next.updated_at },
      events: (view: ContactView) => contactChangeEvents(orgId, current, next, view, next.updated_at),
    };
  });
  return { view, changed };
}

export async function deleteContact(deps: CrmDeps, orgId: string, id: string): Promise<void> {
  let deleted: ContactRecord | undefined;
  await writeContact(deps, orgId, id, async (current) => {
    deleted = current;
    const at = deps.now();
    return { set: { deleted_at: at, updated_at: at }, events: () => [newEvent(orgId, 'contact.deleted', { object: { id } }, at)] };
  });
  // The identities of a deleted contact become free for new contacts.
  if (deleted) await releaseIdentities(deps, deleted, identitiesOf(deleted));
}

export async function addContactTags(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<ContactView> {
  const body = parseOrThrow(addContactTagsBody, rawBody);
  return writeContact(deps, orgId, id, async (current) => {
    const added = body.tags.filter((tag) => !current.tags.includes(tag));
    if (added.length === 0) return null;
    const at = deps.now();
    const tags = [...current.tags, ...added];
    return { set: { tags, updated_at: at }, events: (view) => tagEvents(orgId, view, current.tags, tags, at) };
  });
}

export async function removeContactTag(deps: CrmDeps, orgId: string, id: string, tag: string): Promise<void> {
  await writeContact(deps, orgId, id, async (current) => {
    if (!current.tags.includes(tag)) return null;
    const at = deps.now();
    const tags = current.tags.filter((existing) => existing !== tag);
    return { set: { tags, updated_at: at }, events: (view) => tagEvents(orgId, view, current.tags, tags, at) };
  });
}

type Claims = Partial<Record<IdentityKind, string | null>>;

const IDENTITY_KINDS = ['email', 'phone', 'external_id'] as const satisfies readonly IdentityKind[];
const KIND_NAMES: Record<IdentityKind, string> = { email: 'e-mail', phone: 'phone', external_id: 'external_id' };

const identitiesOf = (record: ContactRecord): Claims => ({
  email: record.email,
  phone: record.phone,
  external_id: record.external_id ?? null,
});

/**
 * Read, plan, write conditionally on the revision read (the storage kit's writeRevision). A change of e-mail or
 * phone claims the new value first and frees the old one once the change is stored.
 */
function writeContact(
  deps: CrmDeps,
  orgId: string,
  id: string,
  plan: (current: ContactRecord) => Promise<PlannedChange<ContactRecord, ContactView> | null>,
): Promise<ContactView> {
  return writeRevision({
    read: () => requireContact(deps, orgId, id),
    plan,
    view: (next) => viewContact(deps, orgId, next),
    write: async (current, set, events) => {
      const changedClaims = Object.fromEntries(IDENTITY_KINDS.filter((kind) => kind in set).map((kind) => [kind, set[kind]]));
      const next = { ...current, ...set };
      const claimed = await claimIdentities(deps, next, changedClaims);
      try {
        await deps.contacts.updateAtRevision(orgId, id, current.rev, set, events);
      } catch (error) {
        await releaseIdentities(deps, next, claimed);
        throw error;
      }
      await releaseIdentities(
        deps,
        current,
        Object.fromEntries(Object.keys(changedClaims).map((kind) => [kind, current[kind as IdentityKind] ?? null])),
      );
    },
  });
}

async function claimIdentities(deps: CrmDeps, record: ContactRecord, claims: Claims): Promise<Claims> {
  const done: Claims = {};
  for (const kind of IDENTITY_KINDS) {
    const value = claims[kind];
    if (!value) continue;
    const holder = await deps.identities.claim(
      record.org_id,
      kind,
      value,
      record.id,
      async (holderId) => (await deps.contacts.getById(record.org_id, holderId)) !== null,
    );
    if (holder) {
      await releaseIdentities(deps, record, done);
      throw new AppError('DUPLICATE_CONTACT', `Another contact already has this ${KIND_NAMES[kind]}.`, {
        field: kind,
        existing_id: holder,
      });
    }
    done[kind] = value;
  }
  return done;
}

async function releaseIdentities(deps: CrmDeps, record: Pick<ContactRecord, 'org_id' | 'id'>, claims: Claims): Promise<void> {
  for (const kind of IDENTITY_KINDS) {
    const value = claims[kind];
    if (value) await deps.identities.release(record.org_id, kind, value, record.id);
  }
}

async function requirePlanFeature(deps: CrmDeps, orgId: string, feature: 'contact_funnel_stage'): Promise<void> {
  const organization = await deps.organizations.getById(orgId);
  if (!organization || !planAllows(organization.plan, feature)) {
    throw new AppError('PLAN_RESTRICTION', "The contact funnel (funnel_stage) is not included in the organization's plan.", {
      feature,
      plan: organization?.plan ?? null,
    });
  }
}

/** The fields whose change is a contact.updated (`previous` names them); a merge may also fill the channel ids. */
const COMPARED_FIELDS = [
  'name',
  'email',
  'phone',
  'company_id',
  'tags',
  'custom_fields',
  'funnel_stage',
  'photoapp_username',
  'chatapp_jid',
  'socialmsg_psid',
  'socialmsg_name',
  'source',
  'avatar_url',
  'external_id',
] as const;
type ComparedField = (typeof COMPARED_FIELDS)[number];

function changedFields(current: ContactRecord, next: ContactRecord): ComparedField[] {
  return COMPARED_FIELDS.filter((field) => JSON.stringify(current[field] ?? null) !== JSON.stringify(next[field] ?? null));
}

/** `previous` uses the names of the read shape: company_id is rendered as `company`. */
const previousName = (field: ComparedField): string => (field === 'company_id' ? 'company' : field);
const previousValue = (current: ContactRecord, field: ComparedField): unknown =>
  field === 'company_id' ? (current.company_id ? { id: current.company_id } : null) : (current[field] ?? null);

function definedFields<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** contact.updated with the old values of the changed fields (when any changed), and an event per tag added or removed. */
export function contactChangeEvents(
  orgId: string,
  current: ContactRecord,
  next: ContactRecord,
  view: ContactView,
  at: Date,
): OutboxEntry[] {
  const changed = changedFields(current, next);
  if (changed.length === 0) return [];
  const previous = Object.fromEntries(changed.map((field) => [previousName(field), previousValue(current, field)]));
  return [
    newEvent(orgId, 'contact.updated', { object: eventObject(view), previous }, at),
    ...tagEvents(orgId, view, current.tags, next.tags, at),
  ];
}

function tagEvents(orgId: string, view: Pick<ContactView, 'id' | 'name'>, before: string[], after: string[], at: Date): OutboxEntry[] {
  const contact = { id: view.id, name: view.name };
  return [
    ...after.filter((tag) => !before.includes(tag)).map((tag) => newEvent(orgId, 'contact.tag.added', { contact, tag }, at)),
    ...before.filter((tag) => !after.includes(tag)).map((tag) => newEvent(orgId, 'contact.tag.removed', { contact, tag }, at)),
  ];
}
