import type { ContactRecord } from '../repository/contact.repository';

/** Fields the survivor keeps when it has a value, and takes from the first folded contact that has one otherwise. */
const FILLED = [
  'email',
  'phone',
  'photoapp_username',
  'chatapp_jid',
  'socialmsg_psid',
  'socialmsg_name',
  'source',
  'avatar_url',
  'company_id',
  'funnel_stage',
  'external_id',
] as const;

/**
 * The survivor's fields after a merge (docs/contact-merge.md): its own values win; a field it lacks is taken from
 * the first folded contact (in the order of contact_ids) that has it; tags are the union (the survivor's first);
 * custom fields are merged key by key the same way; message counts add up and the last message is the latest.
 * A channel identity the survivor already has stays on the folded contact, which keeps routing that identity's
 * messages to the survivor (channel-contacts.ts). Only the fields that change are returned.
 */
export function mergedFields(survivor: ContactRecord, folded: ContactRecord[]): Partial<ContactRecord> {
  const set: Partial<Record<keyof ContactRecord, unknown>> = {};
  for (const field of FILLED) {
    if ((survivor[field] ?? null) !== null) continue;
    const value = folded.find((contact) => (contact[field] ?? null) !== null)?.[field];
    if (value !== undefined && value !== null) set[field] = value;
  }
  const tags = [...new Set([...survivor.tags, ...folded.flatMap((contact) => contact.tags)])];
  if (tags.length !== survivor.tags.length) set.tags = tags;
  const customFields = { ...survivor.custom_fields };
  for (const contact of folded)
    for (const [key, value] of Object.entries(contact.custom_fields)) if (!(key in customFields)) customFields[key] = value;
  if (Object.keys(customFields).length !== Object.keys(survivor.custom_fields).length) set.custom_fields = customFields;
  const messages = folded.reduce((sum, contact) => sum + contact.messages_count, 0);
  if (messages > 0) set.messages_count = survivor.messages_count + messages;
  const last = [survivor, ...folded].map((contact) => contact.last_message_at?.getTime() ?? 0).reduce((a, b) => Math.max(a, b), 0);
  if (last > (survivor.last_message_at?.getTime() ?? 0)) set.last_message_at = new Date(last);
  return set as Partial<ContactRecord>;
}
