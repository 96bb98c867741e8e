import type { ContactRecord } from '../repository/contact.repository';
import { requireContact } from './contacts';
import type { CrmDeps } from './deps';

/** What other services address and scope a contact by: its own fields, nothing read from what links to it. */
export interface ContactFieldsView {
  id: string;
  name: string;
  phone: string | null;
  photoapp_username: string | null;
  chatapp_jid: string | null;
  socialmsg_psid: string | null;
  tags: string[];
  /** ResolveChannelContact only: this call created the contact. */
  created?: boolean;
}

export function contactFieldsOf(record: ContactRecord): ContactFieldsView {
  return {
    id: record.id,
    name: record.name,
    phone: record.phone,
    photoapp_username: record.photoapp_username,
    chatapp_jid: record.chatapp_jid,
    socialmsg_psid: record.socialmsg_psid,
    tags: record.tags,
  };
}

/**
 * GetContactFields: the live contact's own fields in one indexed read. A message send (a reply every few seconds
 * per conversation) needs the contact's addresses, not its notes and deals counts and newest deals that GetContact
 * computes from two more collections; a merged contact answers NOT_FOUND naming the survivor, like GetContact.
 */
export async function getContactFields(deps: CrmDeps, orgId: string, id: string): Promise<ContactFieldsView> {
  return contactFieldsOf(await requireContact(deps, orgId, id));
}
