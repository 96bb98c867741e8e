import {
  keyset,
  type KeysetPage,
  type KeysetPosition,
  OUTBOX_FIELDS,
  type OutboxEntry,
  recordOf,
  toPage,
  updateWithEvents,
} from '@crm/shared';
import type { InstanceKind } from '@crm/shared/schemas';
import { Schema, type Connection, type FilterQuery } from 'mongoose';

export type InstanceStatus = 'connected' | 'connecting' | 'disconnected';

/** A number (qrcode, official) or a page (photoapp, socialmsg) connected at a provider. */
export interface ChatInstanceRecord {
  id: string;
  org_id: string;
  name: string;
  kind: InstanceKind;
  /** The provider's handle: phone-number id (official), bridge instance (qrcode), page id (photoapp, socialmsg). */
  provider_ref: string;
  phone_number: string | null;
  status: InstanceStatus;
  is_default: boolean;
  warmup: { active: boolean; daily_limit: number | null };
  created_at: Date;
  updated_at: Date;
  rev: number;
}

type ChatInstanceDoc = Omit<ChatInstanceRecord, 'id'> & { _id: string };

const schema = new Schema<ChatInstanceDoc>(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    kind: { type: String, required: true },
    provider_ref: { type: String, required: true },
    phone_number: { type: String, default: null },
    status: { type: String, required: true },
    is_default: { type: Boolean, default: false },
    warmup: { type: Object, default: () => ({ active: false, daily_limit: null }) },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    rev: { type: Number, required: true },
    ...OUTBOX_FIELDS,
  },
  { versionKey: false, collection: 'chat_instances', minimize: false },
);
schema.index({ org_id: 1, created_at: -1, _id: -1 });
// Provider callbacks name the number by its provider handle; one handle belongs to one organization.
schema.index({ kind: 1, provider_ref: 1 }, { unique: true });
schema.index({ _outbox_pending: 1 });

export interface ChatInstanceQuery {
  kinds: InstanceKind[];
  status?: string | null;
  limit: number;
  after: KeysetPosition | undefined;
}

export type ChatInstanceRepository = ReturnType<typeof createChatInstanceRepository>;

export function createChatInstanceRepository(db: Connection) {
  const Instance = db.model<ChatInstanceDoc>('ChatInstance', schema);
  const toRecord = (doc: ChatInstanceDoc): ChatInstanceRecord => recordOf(doc);
  return {
    collection: Instance.collection,

    async insert(record: ChatInstanceRecord): Promise<void> {
      const { id, ...rest } = record;
      await Instance.collection.insertOne({ _id: id, ...rest } as never);
    },

    async getById(orgId: string, id: string): Promise<ChatInstanceRecord | null> {
      const doc = await Instance.findOne({ _id: id, org_id: orgId }).lean<ChatInstanceDoc>();
      return doc ? toRecord(doc) : null;
    },

    async getMany(orgId: string, ids: string[]): Promise<ChatInstanceRecord[]> {
      if (ids.length === 0) return [];
      const docs = await Instance.find({ _id: { $in: [...new Set(ids)] }, org_id: orgId }).lean<ChatInstanceDoc[]>();
      return docs.map(toRecord);
    },

    /** Callbacks carry only the provider handle; the instance tells the organization. */
    async getByProviderRef(kind: InstanceKind, providerRef: string): Promise<ChatInstanceRecord | null> {
      const doc = await Instance.findOne({ kind, provider_ref: providerRef }).lean<ChatInstanceDoc>();
      return doc ? toRecord(doc) : null;
    },

    async findDefault(orgId: string, kinds: InstanceKind[]): Promise<ChatInstanceRecord | null> {
      const doc = await Instance.findOne({ org_id: orgId, kind: { $in: kinds }, is_default: true })
        .sort({ created_at: 1 })
        .lean<ChatInstanceDoc>();
      return doc ? toRecord(doc) : null;
    },

    /** The first page (photoapp, socialmsg) of the organization; the connected one first. */
    async findFirstOfKind(orgId: string, kind: InstanceKind): Promise<ChatInstanceRecord | null> {
      const docs = await Instance.find({ org_id: orgId, kind }).sort({ created_at: 1 }).limit(20).lean<ChatInstanceDoc[]>();
      const doc = docs.find((candidate) => candidate.status === 'connected') ?? docs[0];
      return doc ? toRecord(doc) : null;
    },

    async count(orgId: string, kinds: InstanceKind[]): Promise<number> {
      return Instance.countDocuments({ org_id: orgId, kind: { $in: kinds } });
    },

    async list(orgId: string, query: ChatInstanceQuery): Promise<KeysetPage<ChatInstanceRecord>> {
      const after = query.after ? { ...query.after, value: new Date(String(query.after.value)) } : undefined;
      const { filter: position, sort } = keyset('created_at', 'desc', after);
      const conditions: FilterQuery<ChatInstanceDoc>[] = [{ org_id: orgId, kind: { $in: query.kinds } }];
      if (query.status) conditions.push({ status: query.status });
      if (after) conditions.push(position as FilterQuery<ChatInstanceDoc>);
      const rows = await Instance.find({ $and: conditions })
        .sort(sort)
        .limit(query.limit + 1)
        .lean<ChatInstanceDoc[]>();
      const page = toPage(rows, query.limit, (row) => row.created_at.toISOString());
      return { ...page, items: page.items.map(toRecord) };
    },

    /** Makes one number the default of its organization's chatapp numbers. */
    async setDefault(orgId: string, id: string): Promise<void> {
      await Instance.updateMany({ org_id: orgId, _id: { $ne: id }, is_default: true }, { $set: { is_default: false }, $inc: { rev: 1 } });
      await Instance.updateOne({ org_id: orgId, _id: id }, { $set: { is_default: true }, $inc: { rev: 1 } });
    },

    /**
     * Moves the status with its event in one conditional update; null when the status already was `status`
     * (a repeated provider callback changes nothing and raises nothing).
     */
    async setStatus(
      orgId: string,
      id: string,
      status: InstanceStatus,
      at: Date,
      events: (record: ChatInstanceRecord) => OutboxEntry[],
    ): Promise<ChatInstanceRecord | null> {
      const current = await Instance.findOne({ _id: id, org_id: orgId }).lean<ChatInstanceDoc>();
      if (!current || current.status === status) return null;
      const next = toRecord({ ...current, status, updated_at: at });
      const doc = await Instance.findOneAndUpdate(
        { _id: id, org_id: orgId, rev: current.rev },
        updateWithEvents({ status, updated_at: at }, events(next), { bumpRevision: true }),
        { new: true },
      ).lean<ChatInstanceDoc>();
      return doc ? toRecord(doc) : null;
    },
  };
}
