import type { AudienceContact } from '@crm/proto/gen/crm/v1/audiences';
import { iso, type Nullable } from '@crm/shared';
import type { ContactRecord } from '../repository/contact.repository';

export type AudienceContactView = Nullable<AudienceContact>;

/** What a broadcast needs of a contact: its addresses and the values its template variables may read. */
export function viewAudienceContact(record: ContactRecord): AudienceContactView {
  return {
    id: record.id,
    name: record.name,
    email: record.email,
    phone: record.phone,
    chatapp_jid: record.chatapp_jid,
    tags: record.tags,
    // A Struct on the wire: a plain JSON object, `{}` when a contact has none.
    custom_fields: { ...(record.custom_fields ?? {}) },
    source: record.source,
    created_at: iso(record.created_at),
  };
}
