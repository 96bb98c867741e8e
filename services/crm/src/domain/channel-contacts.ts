import { AppError, derivedId, isDuplicateKeyError, newId, newEvent } from '@crm/shared';
import { CHANNELS, type Channel } from '@crm/shared/schemas';
import type { ChannelField, ContactRecord } from '../repository/contact.repository';
import { contactFieldsOf, type ContactFieldsView } from './contact-fields';
import { eventObject, viewContact } from './contact.view';
import type { CrmDeps } from './deps';

const FIELD: Record<Channel, ChannelField> = { chatapp: 'chatapp_jid', photoapp: 'photoapp_username', socialmsg: 'socialmsg_psid' };

export interface ChannelContactInput {
  channel: string;
  identifier: string;
  name?: string | null;
  phone?: string | null;
}

/**
 * The contact an inbound message belongs to (asked by the messaging service). Found by its channel identity, or
 * (chatapp) by the phone of the number, which then gains the identity; otherwise created with source = the
 * channel. The new contact's id is derived from the organization and the identity, so concurrent and retried
 * calls insert one document and the losers read the winner's. Answers the contact's own fields: the caller stores a
 * message under its id and name, and what links to the contact (counts, deals) would cost reads of two more collections.
 */
export async function resolveChannelContact(deps: CrmDeps, orgId: string, input: ChannelContactInput): Promise<ContactFieldsView> {
  const channel = CHANNELS.find((candidate) => candidate === input.channel);
  const identifier = input.identifier.trim();
  if (!channel || !identifier) throw new AppError('VALIDATION_ERROR', 'channel and identifier are required.');
  const field = FIELD[channel];

  const holders = await deps.contacts.holdersOf(orgId, field, identifier);
  const existing = holders.live ?? (await survivorOf(deps, orgId, holders.folded?.merged_into ?? null));
  if (existing) return contactFieldsOf(existing);
  if (input.phone) {
    const byPhone = await deps.contacts.findBy(orgId, 'phone', input.phone);
    const linked = byPhone && (await deps.contacts.setChannelIdentity(orgId, byPhone.id, field, identifier));
    if (linked) return contactFieldsOf(linked);
  }
  return createChannelContact(deps, orgId, channel, identifier, input);
}

/** Merges chained this deep are followed; a longer chain is not expected (each merge folds into a live contact). */
const MAX_MERGE_HOPS = 5;

/**
 * The identity of a contact folded by a merge that the survivor could not take (it has its own): its messages
 * belong to the contact it was merged into (docs/contact-merge.md), followed from `mergedInto`.
 */
async function survivorOf(deps: CrmDeps, orgId: string, mergedInto: string | null) {
  let id = mergedInto;
  for (let hop = 0; id && hop < MAX_MERGE_HOPS; hop++) {
    const live = await deps.contacts.getById(orgId, id);
    if (live) return live;
    id = await deps.contacts.mergedInto(orgId, id);
  }
  return null;
}

async function createChannelContact(
  deps: CrmDeps,
  orgId: string,
  channel: Channel,
  identifier: string,
  input: ChannelContactInput,
  id = derivedId('contact', `${orgId}|${channel}|${identifier}`),
): Promise<ContactFieldsView> {
  const now = deps.now();
  const phone = input.phone ?? null;
  const record: ContactRecord = {
    id,
    org_id: orgId,
    name: input.name?.trim() || (channel === 'chatapp' && phone ? phone : identifier),
    email: null,
    phone,
    photoapp_username: channel === 'photoapp' ? identifier : null,
    chatapp_jid: channel === 'chatapp' ? identifier : null,
    socialmsg_psid: channel === 'socialmsg' ? identifier : null,
    socialmsg_name: channel === 'socialmsg' ? input.name?.trim() || null : null,
    source: channel,
    avatar_url: null,
    company_id: null,
    tags: [],
    custom_fields: {},
    funnel_stage: null,
    last_message_at: null,
    messages_count: 0,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  // The phone stays unique among live contacts; a holder found here was created since the lookup above.
  if (
    phone &&
    (await deps.identities.claim(orgId, 'phone', phone, id, async (holder) => (await deps.contacts.getById(orgId, holder)) !== null))
  )
    record.phone = null;
  try {
    // Nothing links to a contact not yet stored: its event has no counts to read.
    const view = await viewContact(deps, orgId, record, { created: true });
    await deps.contacts.insert(record, [newEvent(orgId, 'contact.created', { object: eventObject(view) }, now)]);
    return { ...contactFieldsOf(record), created: true };
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
  const winner = await deps.contacts.getById(orgId, id);
  if (winner) return contactFieldsOf(winner);
  // The derived id belongs to a deleted contact: the sender starts over as a new contact with a fresh id.
  return createChannelContact(deps, orgId, channel, identifier, input, newId('contact'));
}
