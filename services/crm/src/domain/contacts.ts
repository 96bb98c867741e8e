import { AppError, invalidReference, newId, newEvent, notFound, type OutboxEntry, type PlannedChange, writeRevision } from '@crm/shared';
import { addContactTagsBody, createContactBody, parseOrThrow, updateContactBody } from '@crm/shared/schemas';
import type { ContactQuery, ContactRecord, ContactSort } from '../repository/contact.repository';
import type { IdentityKind } from '../repository/identity.repository';
import { detailLinks, eventObject, viewContact, viewContactDetail, viewContacts, type ContactView } from './contact.view';
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
  // The links are read beside the contact, not after it: one round trip to the database instead of two.
  const links = detailLinks(deps, orgId, id);
  links.catch(() => undefined);
  return viewContactDetail(deps, orgId, await requireContact(deps, orgId, id), links);
}

async function requireContact(deps: CrmDeps, orgId: string, id: string) {
  const record = await deps.contacts.getById(orgId, id);
  if (!record) throw notFound('contact');
  return record;
}

export async function createContact(deps: CrmDeps, orgId: string, rawBody: unknown): Promise<ContactView> {
  const body = parseOrThrow(createContactBody, rawBody);
  if (body.company_id && !(await deps.links.companyExists(orgId, body.company_id))) throw invalidReference('company_id', body.company_id);
  const customFields = await checkCustomFields(deps, orgId, 'contact', body.custom_fields ?? {}, 'create');

  const now = deps.now();
  const record: ContactRecord = {
    id: newId('contact'),
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
  };
  const claimed = await claimIdentities(deps, record, { email: record.email, phone: record.phone });
  try {
    const view = await viewContact(deps, orgId, record, { created: true });
    await deps.contacts.insert(record, [newEvent(orgId, 'contact.created', { object: eventObject(view) }, now)]);
    return view;
  } catch (error) {
    await releaseIdentities(deps, record, claimed);
    throw error;
  }
}

export async function updateContact(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<ContactView> {
  const body = parseOrThrow(updateContactBody, rawBody);
  if (body.funnel_stage !== undefined) await requirePlanFeature(deps, orgId, 'contact_funnel_stage');
  if (body.company_id && !(await deps.links.companyExists(orgId, body.company_id))) throw invalidReference('company_id', body.company_id);
  const customFields = body.custom_fields && (await checkCustomFields(deps, orgId, 'contact', body.custom_fields, 'replace'));

  return writeContact(deps, orgId, id, async (current) => {
    const next: ContactRecord = {
      ...current,
      ...definedFields({
        name: body.name,
        email: body.email,
        phone: body.phone,
        company_id: body.company_id,
        tags: body.tags,
        funnel_stage: body.funnel_stage,
      }),
      ...(customFields ? { custom_fields: customFields } : {}),
    };
    const changed = changedFields(current, next);
    if (changed.length === 0) return null;
    next.updated_at = deps.now();
    return {
      set: { ...Object.fromEntries(changed.map((field) => [field, next[field]])), updated_at: next.updated_at },
      events: (view: ContactView) => [
        newEvent(
          orgId,
          'contact.updated',
          { object: eventObject(view), previous: Object.fromEntries(changed.map((f) => [previousName(f), previousValue(current, f)])) },
          next.updated_at,
        ),
        ...tagEvents(orgId, view, current.tags, next.tags, next.updated_at),
      ],
    };
  });
}

export async function deleteContact(deps: CrmDeps, orgId: string, id: string): Promise<void> {
  let deleted: ContactRecord | undefined;
  await writeContact(deps, orgId, id, async (current) => {
    deleted = current;
    const at = deps.now();
    return { set: { deleted_at: at, updated_at: at }, events: () => [newEvent(orgId, 'contact.deleted', { object: { id } }, at)] };
  });
  // The identities of a deleted contact become free for new contacts.
  if (deleted) await releaseIdentities(deps, deleted, { email: deleted.email, phone: deleted.phone });
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
      const changedClaims = Object.fromEntries(
        (['email', 'phone'] as const).filter((kind) => kind in set).map((kind) => [kind, set[kind]]),
      );
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
        Object.fromEntries(Object.keys(changedClaims).map((kind) => [kind, current[kind as IdentityKind]])),
      );
    },
  });
}

async function claimIdentities(deps: CrmDeps, record: ContactRecord, claims: Claims): Promise<Claims> {
  const done: Claims = {};
  for (const kind of ['email', 'phone'] as const) {
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
      throw new AppError('DUPLICATE_CONTACT', `Another contact already has this ${kind === 'email' ? 'e-mail' : 'phone'}.`, {
        field: kind,
        existing_id: holder,
      });
    }
    done[kind] = value;
  }
  return done;
}

async function releaseIdentities(deps: CrmDeps, record: Pick<ContactRecord, 'org_id' | 'id'>, claims: Claims): Promise<void> {
  for (const kind of ['email', 'phone'] as const) {
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

const COMPARED_FIELDS = ['name', 'email', 'phone', 'company_id', 'tags', 'custom_fields', 'funnel_stage'] as const;
type ComparedField = (typeof COMPARED_FIELDS)[number];

function changedFields(current: ContactRecord, next: ContactRecord): ComparedField[] {
  return COMPARED_FIELDS.filter((field) => JSON.stringify(current[field]) !== JSON.stringify(next[field]));
}

/** `previous` uses the names of the read shape: company_id is rendered as `company`. */
const previousName = (field: ComparedField): string => (field === 'company_id' ? 'company' : field);
const previousValue = (current: ContactRecord, field: ComparedField): unknown =>
  field === 'company_id' ? (current.company_id ? { id: current.company_id } : null) : current[field];

function definedFields<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function tagEvents(orgId: string, view: ContactView, before: string[], after: string[], at: Date): OutboxEntry[] {
  const contact = { id: view.id, name: view.name };
  return [
    ...after.filter((tag) => !before.includes(tag)).map((tag) => newEvent(orgId, 'contact.tag.added', { contact, tag }, at)),
    ...before.filter((tag) => !after.includes(tag)).map((tag) => newEvent(orgId, 'contact.tag.removed', { contact, tag }, at)),
  ];
}
