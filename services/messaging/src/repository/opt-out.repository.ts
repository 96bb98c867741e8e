import { type OutboxEntry, RecordStore, type Storage } from '@crm/shared';
import { Schema } from 'mongoose';

/**
 * A contact that asked for no marketing (an inbound STOP, or POST /v1/contacts/{id}/opt-out): official broadcasts
 * with a marketing template leave it out (`marketing_opt_out`). Utility and authentication templates still reach
 * it, as providers allow. One record per contact (`<org>:<contact>`), so opting out twice records (and raises) once.
 */
export interface OptOutRecord {
  id: string;
  org_id: string;
  contact_id: string;
  /** Optional on records stored before the opt-out carried its origin. */
  contact_name?: string;
  channel?: 'chatapp' | 'photoapp' | 'socialmsg' | null;
  source?: 'keyword' | 'api';
  keyword?: string | null;
  at: Date;
}

const schema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    contact_id: { type: String, required: true },
    contact_name: { type: String, default: '' },
    channel: { type: String, default: null },
    source: { type: String, default: 'keyword' },
    keyword: { type: String, default: null },
    at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'marketing_opt_outs', minimize: false },
);
schema.index({ org_id: 1, contact_id: 1 });

export type OptOutRepository = ReturnType<typeof createOptOutRepository>;

export const optOutKey = (orgId: string, contactId: string) => `${orgId}:${contactId}`;

export function createOptOutRepository(storage: Storage) {
  const optOuts = new RecordStore<OptOutRecord>(storage, { model: 'MarketingOptOut', schema, what: 'opt-out', outbox: true });
  return {
    get: (orgId: string, contactId: string) => optOuts.findOne({ _id: optOutKey(orgId, contactId) }),

    /** Records the opt-out with its event; false when the contact had already opted out (nothing is raised). */
    optOut: (record: OptOutRecord, events: OutboxEntry[]) => optOuts.insertIfNew(record, { events }),

    async optIn(orgId: string, contactId: string): Promise<void> {
      await optOuts.model.deleteOne({ _id: optOutKey(orgId, contactId) });
    },

    /** Which of these contacts opted out: one query per page of an audience. */
    async optedOut(orgId: string, contactIds: string[]): Promise<Set<string>> {
      if (contactIds.length === 0) return new Set();
      const records = await optOuts.findMany({ _id: { $in: contactIds.map((id) => optOutKey(orgId, id)) } });
      return new Set(records.map((record) => record.contact_id));
    },

    /** A merge: the folded contact's opt-out holds for the contact it became (the same person asked). */
    async carryOver(orgId: string, from: string, to: { id: string; name: string }): Promise<void> {
      const held = await optOuts.findOne({ _id: optOutKey(orgId, from) });
      if (held) await optOuts.insertIfNew({ ...held, id: optOutKey(orgId, to.id), contact_id: to.id, contact_name: to.name });
    },
  };
}
