import { RecordStore, retryOnConflict, type Storage, WriteConflict } from '@crm/shared';
import { Schema } from 'mongoose';

interface IdentityRecord {
  /** `<org>|<kind>|<value>`: the unique index is the _id itself. */
  id: string;
  org_id: string;
  contact_id: string;
  /** When the claim was taken (absent on claims older than this field): a young claim may await its record. */
  claimed_at?: Date;
}

const identitySchema = (collection: string) =>
  new Schema(
    {
      _id: { type: String, required: true },
      org_id: { type: String, required: true },
      contact_id: { type: String, required: true },
      claimed_at: { type: Date },
    },
    { versionKey: false, collection },
  );

export type IdentityKind = 'email' | 'phone' | 'external_id';

export type IdentityRepository = ReturnType<typeof createIdentityRepository>;

/** Where one kind of record keeps its claims: contacts (e-mail, phone, external_id) or companies (external_id). */
const CLAIMS = {
  contact: { model: 'ContactIdentity', collection: 'contact_identities', what: 'contact identity' },
  company: { model: 'CompanyIdentity', collection: 'company_identities', what: 'company identity' },
} as const;

/**
 * How long a claim whose record is not stored yet counts as held: a create claims first and inserts its record a
 * few round trips later, so a missing record means "not yet" before it means "left behind by a crash".
 */
const PENDING_CLAIM_MS = 10_000;

/**
 * Claims that keep e-mails, phones and external ids unique among an organization's live contacts (external ids
 * among its live companies too). A claim is a document whose _id is the identity, so two concurrent creates cannot
 * both win. A claim left behind by a crash, or pointing at a deleted record, is taken over by the next claimant
 * (see `claim`). Not a unique index on the records: the local MongoDB-wire server keeps a unique index's entry
 * after the field changes (an external_id changed or freed by a delete would stay taken), while an _id is exact.
 * `contact_id` is the holding record's id (a company's, in the company claims).
 */
export function createIdentityRepository(storage: Storage, kind: keyof typeof CLAIMS = 'contact') {
  const { model, collection, what } = CLAIMS[kind];
  const identities = new RecordStore<IdentityRecord>(storage, { model, schema: identitySchema(collection), what });
  // E-mails and phones compare case-insensitively; an external_id is the integrator's, exact.
  const keyOf = (orgId: string, kind: IdentityKind, value: string) =>
    `${orgId}|${kind}|${kind === 'external_id' ? value : value.toLowerCase()}`;
  return {
    /**
     * Returns null when the identity is now held by `contactId`, or the id of the live contact that holds it.
     * `isLive` tells whether a current holder's record is stored. A holder whose record is missing is waited for
     * while its claim is younger than PENDING_CLAIM_MS (its create is between claim and insert: taking the claim over
     * would let both creates store the identity), then taken over. A claim released, taken over or still pending
     * is read again under the conflict policy; one pending past the policy's retries answers 503.
     */
    claim(orgId: string, kind: IdentityKind, value: string, contactId: string, isLive: (holderId: string) => Promise<boolean>) {
      const id = keyOf(orgId, kind, value);
      return retryOnConflict(async (): Promise<string | null> => {
        if (await identities.insertIfNew({ id, org_id: orgId, contact_id: contactId, claimed_at: new Date() })) return null;
        const holder = await identities.findOne({ _id: id });
        if (holder?.contact_id === contactId) return null;
        if (holder && (await isLive(holder.contact_id))) return holder.contact_id;
        const pending = holder?.claimed_at !== undefined && Date.now() - holder.claimed_at.getTime() < PENDING_CLAIM_MS;
        if (holder && !pending) {
          const takenOver = await identities.update(
            { _id: id, contact_id: holder.contact_id },
            { contact_id: contactId, claimed_at: new Date() },
          );
          if (takenOver) return null;
        }
        throw new WriteConflict(what);
      });
    },

    /** The contact id that holds the identity now (it may be deleted: the caller checks). */
    async holderOf(orgId: string, kind: IdentityKind, value: string): Promise<string | null> {
      return (await identities.findOne({ _id: keyOf(orgId, kind, value) }))?.contact_id ?? null;
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
