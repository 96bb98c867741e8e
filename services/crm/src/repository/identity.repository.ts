import { RecordStore, retryOnConflict, type Storage, WriteConflict } from '@crm/shared';
import { Schema } from 'mongoose';

interface IdentityRecord {
  /** `<org>|<kind>|<value>`: the unique index is the _id itself. */
  id: string;
  org_id: string;
  contact_id: string;
}

const identitySchema = new Schema(
  { _id: { type: String, required: true }, org_id: { type: String, required: true }, contact_id: { type: String, required: true } },
  { versionKey: false, collection: 'contact_identities' },
);

export type IdentityKind = 'email' | 'phone';

export type IdentityRepository = ReturnType<typeof createIdentityRepository>;

/**
 * Claims that keep e-mails and phones unique among an organization's live contacts. A claim is a document
 * whose _id is the identity, so two concurrent creates cannot both win. A claim left behind by a crash, or
 * pointing at a deleted contact, is taken over by the next claimant (see `claim`).
 */
export function createIdentityRepository(storage: Storage) {
  const identities = new RecordStore<IdentityRecord>(storage, {
    model: 'ContactIdentity',
    schema: identitySchema,
    what: 'contact identity',
  });
  const keyOf = (orgId: string, kind: IdentityKind, value: string) => `${orgId}|${kind}|${value.toLowerCase()}`;
  return {
    /**
     * Returns null when the identity is now held by `contactId`, or the id of the live contact that holds it.
     * `isLive` tells whether a current holder still counts. A claim released or taken over by another writer
     * between the reads and the write is read again (the conflict policy).
     */
    claim(orgId: string, kind: IdentityKind, value: string, contactId: string, isLive: (holderId: string) => Promise<boolean>) {
      const id = keyOf(orgId, kind, value);
      return retryOnConflict(async (): Promise<string | null> => {
        if (await identities.insertIfNew({ id, org_id: orgId, contact_id: contactId })) return null;
        const holder = await identities.findOne({ _id: id });
        if (holder?.contact_id === contactId) return null;
        if (holder && (await isLive(holder.contact_id))) return holder.contact_id;
        if (holder && (await identities.update({ _id: id, contact_id: holder.contact_id }, { contact_id: contactId }))) return null;
        throw new WriteConflict('contact identity');
      });
    },

    async release(orgId: string, kind: IdentityKind, value: string, contactId: string): Promise<void> {
      await identities.model.deleteOne({ _id: keyOf(orgId, kind, value), contact_id: contactId });
    },

    /** A merge: the identity held by `from` is now held by `to` (conditional on `from`, so a repeat changes nothing). */
    async transfer(orgId: string, kind: IdentityKind, value: string, from: string, to: string): Promise<void> {
      await identities.update({ _id: keyOf(orgId, kind, value), contact_id: from }, { contact_id: to });
    },
  };
}
