import type { DealSummary } from '@crm/proto/gen/crm/v1/contacts';
import { isoOrNull, iso, type Nullable } from '@crm/shared';
import type { ContactObject } from '@crm/shared/events';
import type { ContactRecord } from '../repository/contact.repository';
import type { ContactDetailLinks } from '../repository/links.repository';
import type { CrmDeps } from './deps';

/** The record events carry, plus the fields only GET /v1/contacts/{id} fills. */
export type ContactView = ContactObject & { messages_count: number | null; deals: Nullable<DealSummary>[] };

/**
 * Renders contacts as the API shows them, with company names and their note and deal counts as stored on them: no
 * query (1 when a contact has a company). A contact stored before the counts were (not counted yet by the start-up
 * pass) is counted from its linked records, in one query for all such contacts of the call.
 */
export async function viewContacts(
  deps: Pick<CrmDeps, 'links'>,
  orgId: string,
  records: ContactRecord[],
  options: { created?: boolean } = {},
): Promise<ContactView[]> {
  // A contact just created has nothing linking to it yet.
  const uncounted = options.created ? [] : records.filter((record) => !isCounted(record)).map((record) => record.id);
  const companyIds = records.flatMap((record) => (record.company_id ? [record.company_id] : []));
  const [companies, { notes, deals }] = await Promise.all([
    deps.links.companyNames(orgId, companyIds),
    deps.links.countsByContact(orgId, uncounted),
  ]);
  return records.map((record) =>
    render(record, companies, record.notes_count ?? notes.get(record.id) ?? 0, record.deals_count ?? deals.get(record.id) ?? 0),
  );
}

/** Whether the record holds its counts (contact.repository.ts, ContactRecord.notes_count). */
const isCounted = (record: ContactRecord) => record.notes_count !== undefined && record.deals_count !== undefined;

/** One contact as the API shows it, from its record and the names and counts of what links to it. */
function render(record: ContactRecord, companies: Map<string, string>, notesCount: number, dealsCount: number): ContactView {
  return {
    id: record.id,
    name: record.name,
    email: record.email,
    phone: record.phone,
    photoapp_username: record.photoapp_username,
    chatapp_jid: record.chatapp_jid,
    socialmsg_psid: record.socialmsg_psid,
    socialmsg_name: record.socialmsg_name,
    source: record.source,
    avatar_url: record.avatar_url,
    company: record.company_id ? { id: record.company_id, name: companies.get(record.company_id) ?? '' } : null,
    tags: record.tags,
    custom_fields: record.custom_fields,
    funnel_stage: record.funnel_stage,
    external_id: record.external_id ?? null,
    notes_count: notesCount,
    deals_count: dealsCount,
    last_message_at: isoOrNull(record.last_message_at),
    created_at: iso(record.created_at),
    updated_at: iso(record.updated_at),
    messages_count: null,
    deals: [],
  };
}

export async function viewContact(
  deps: Pick<CrmDeps, 'links'>,
  orgId: string,
  record: ContactRecord,
  options: { created?: boolean } = {},
): Promise<ContactView> {
  const [view] = await viewContacts(deps, orgId, [record], options);
  if (!view) throw new Error('viewContacts returned nothing for one record');
  return view;
}

/** How many of a contact's deals GET /v1/contacts/{id} shows, newest first. */
export const DETAIL_DEALS = 10;

/**
 * GET /v1/contacts/{id}: the contact plus messages_count and at most 10 linked deals. `links` when they were read
 * with the record (getContact); otherwise read here in one command.
 */
export async function viewContactDetail(
  deps: Pick<CrmDeps, 'links'>,
  orgId: string,
  record: ContactRecord,
  links?: ContactDetailLinks,
): Promise<ContactView> {
  const [{ deals }, view] = await Promise.all([
    links ?? deps.links.contactDetail(orgId, record.id, DETAIL_DEALS),
    viewContact(deps, orgId, record),
  ]);
  const summaries: Nullable<DealSummary>[] = deals;
  return { ...view, messages_count: record.messages_count, deals: summaries };
}

/** The payload of record events: the record as its read route returns it (catalogue §3). */
export function eventObject(view: ContactView): ContactObject {
  const { messages_count: _messages, deals: _deals, ...object } = view;
  return object;
}
