import { newEvent, notFound, nullIfNotFound } from '@crm/shared';
import type { Channel } from '@crm/shared/schemas';
import { optOutKey, type OptOutRecord } from '../repository/opt-out.repository';
import type { MessagingDeps } from './deps';

/** An opt-out as POST /v1/contacts/{id}/opt-out answers it: the same shape as contact.opted_out's data. */
export interface OptOutView {
  contact: { id: string; name: string };
  channel: Channel | null;
  source: 'keyword' | 'api';
  keyword: string | null;
  opted_out_at: string;
}

const OPT_OUT = new Set(['stop', 'unsubscribe', 'opt out', 'optout', 'stop all']);
const OPT_IN = new Set(['start', 'subscribe', 'unstop']);

const keywordOf = (raw: string) => raw.toLowerCase().replace(/[.!]+$/, '');

/** Whether an inbound text is a marketing keyword (STOP, START…): applying one changes the contact's consent. */
export function isMarketingKeyword(text: string | null): boolean {
  const word = keywordOf((text ?? '').trim());
  return OPT_OUT.has(word) || OPT_IN.has(word);
}

/**
 * An inbound STOP opts the contact out of marketing broadcasts (contact.opted_out, once); START opts it back in
 * (silently: only the contact can give consent again).
 */
export async function applyMarketingKeyword(
  deps: MessagingDeps,
  orgId: string,
  contact: { id: string; name: string; channel: Channel },
  text: string | null,
): Promise<void> {
  const raw = (text ?? '').trim();
  const word = keywordOf(raw);
  if (OPT_OUT.has(word)) await recordOptOut(deps, orgId, contact, { channel: contact.channel, source: 'keyword', keyword: raw });
  else if (OPT_IN.has(word)) await deps.broadcasts.optOuts.optIn(orgId, contact.id);
}

/**
 * POST /v1/contacts/{id}/opt-out: the contact asked another way (a form, a call); it is excluded from marketing
 * broadcasts like a STOP keyword. Idempotent: opting out an opted-out contact answers the standing opt-out and
 * raises nothing. Opting back in is the contact's own START keyword.
 */
export async function optOutContact(deps: MessagingDeps, orgId: string, contactId: string): Promise<OptOutView> {
  const contact = await nullIfNotFound(deps.crm.contacts.getContactFields({ org_id: orgId, id: contactId }));
  if (!contact) throw notFound('contact');
  return recordOptOut(deps, orgId, { id: contact.id, name: contact.name }, { channel: null, source: 'api', keyword: null });
}

async function recordOptOut(
  deps: MessagingDeps,
  orgId: string,
  contact: { id: string; name: string },
  origin: Pick<OptOutView, 'channel' | 'source' | 'keyword'>,
): Promise<OptOutView> {
  const at = deps.now();
  const record: OptOutRecord = {
    id: optOutKey(orgId, contact.id),
    org_id: orgId,
    contact_id: contact.id,
    contact_name: contact.name,
    ...origin,
    at,
  };
  const view = viewOptOut(record);
  if (await deps.broadcasts.optOuts.optOut(record, [newEvent(orgId, 'contact.opted_out', view, at)])) return view;
  const standing = await deps.broadcasts.optOuts.get(orgId, contact.id);
  return standing ? viewOptOut({ ...standing, contact_name: standing.contact_name || contact.name }) : view;
}

export function viewOptOut(record: OptOutRecord): OptOutView {
  return {
    contact: { id: record.contact_id, name: record.contact_name ?? '' },
    channel: record.channel ?? null,
    source: record.source ?? 'keyword',
    keyword: record.keyword ?? null,
    opted_out_at: record.at.toISOString(),
  };
}
