import type { Storage } from '@crm/shared';
import { Schema } from 'mongoose';

/**
 * Contacts that asked for no marketing (an inbound STOP): official broadcasts with a marketing template leave
 * them out (`marketing_opt_out`). Utility and authentication templates still reach them, as providers allow.
 */
interface OptOutDoc {
  _id: string;
  org_id: string;
  contact_id: string;
  at: Date;
}

const schema = new Schema<OptOutDoc>(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    contact_id: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'marketing_opt_outs' },
);
schema.index({ org_id: 1, contact_id: 1 });

export type OptOutRepository = ReturnType<typeof createOptOutRepository>;

export function createOptOutRepository(storage: Storage) {
  const OptOut = storage.connection.model<OptOutDoc>('MarketingOptOut', schema);
  const key = (orgId: string, contactId: string) => `${orgId}:${contactId}`;
  return {
    async optOut(orgId: string, contactId: string, at: Date): Promise<void> {
      await OptOut.updateOne(
        { _id: key(orgId, contactId) },
        { $setOnInsert: { org_id: orgId, contact_id: contactId, at } },
        { upsert: true },
      );
    },

    async optIn(orgId: string, contactId: string): Promise<void> {
      await OptOut.deleteOne({ _id: key(orgId, contactId) });
    },

    /** Which of these contacts opted out: one query per page of an audience. */
    async optedOut(orgId: string, contactIds: string[]): Promise<Set<string>> {
      if (contactIds.length === 0) return new Set();
      const docs = await OptOut.find({ _id: { $in: contactIds.map((id) => key(orgId, id)) } }, { contact_id: 1 }).lean<OptOutDoc[]>();
      return new Set(docs.map((doc) => doc.contact_id));
    },
  };
}
