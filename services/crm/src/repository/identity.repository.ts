import { Schema, type Connection } from 'mongoose';
import { isDuplicateKeyError } from '@crm/shared';

interface IdentityDoc {
  /** `<org>|<kind>|<value>`: the unique index is the _id itself. */
  _id: string;
  org_id: string;
  contact_id: string;
}

const identitySchema = new Schema<IdentityDoc>(
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
export function createIdentityRepository(db: Connection) {
  const Identity = db.model<IdentityDoc>('ContactIdentity', identitySchema);
  const keyOf = (orgId: string, kind: IdentityKind, value: string) => `${orgId}|${kind}|${value.toLowerCase()}`;
  return {
    /**
     * Returns null when the identity is now held by `contactId`, or the id of the live contact that holds it.
     * `isLive` tells whether a current holder still counts.
     */
    async claim(
      orgId: string,
      kind: IdentityKind,
      value: string,
      contactId: string,
      isLive: (holderId: string) => Promise<boolean>,
    ): Promise<string | null> {
      const _id = keyOf(orgId, kind, value);
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await Identity.create({ _id, org_id: orgId, contact_id: contactId });
          return null;
        } catch (error) {
          if (!isDuplicateKeyError(error)) throw error;
        }
        const holder = await Identity.findById(_id).lean<IdentityDoc>();
        if (!holder) continue;
        if (holder.contact_id === contactId) return null;
        if (await isLive(holder.contact_id)) return holder.contact_id;
        const taken = await Identity.updateOne({ _id, contact_id: holder.contact_id }, { $set: { contact_id: contactId } });
        if (taken.modifiedCount === 1) return null;
      }
      throw new Error(`identity claim for ${kind} did not settle`);
    },

    async release(orgId: string, kind: IdentityKind, value: string, contactId: string): Promise<void> {
      await Identity.deleteOne({ _id: keyOf(orgId, kind, value), contact_id: contactId });
    },
  };
}
