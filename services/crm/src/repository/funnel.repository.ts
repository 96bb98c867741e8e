import { Schema, type Connection } from 'mongoose';
import { keyset, toPage, type KeysetPage, type KeysetPosition } from '@crm/shared';

/** A stage lives inside its funnel's document: stage edits are single-document writes on the funnel. */
export interface StageRecord {
  id: string;
  name: string;
  color: string | null;
  probability: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface FunnelRecord {
  id: string;
  org_id: string;
  name: string;
  /** 1-based board order; ties (possible after concurrent moves) are broken by id. */
  position: number;
  /**
   * When the funnel was last made the default. The default funnel is the non-archived one with the latest
   * `default_at`: making a funnel the default is one write, and "exactly one default" holds without a
   * second write to un-default the previous one (the store has no multi-document transactions).
   */
  default_at: Date | null;
  is_archived: boolean;
  /** In board order: a stage's position is its index + 1. */
  stages: StageRecord[];
  created_at: Date;
  updated_at: Date;
  rev: number;
}

interface FunnelDoc extends Omit<FunnelRecord, 'id'> {
  _id: string;
}

const stageSchema = new Schema<StageRecord>(
  {
    id: { type: String, required: true },
    name: { type: String, required: true },
    color: { type: String, default: null },
    probability: { type: Number, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { _id: false },
);

const funnelSchema = new Schema<FunnelDoc>(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    position: { type: Number, required: true },
    default_at: { type: Date, default: null },
    is_archived: { type: Boolean, required: true },
    stages: { type: [stageSchema], default: [] },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    rev: { type: Number, required: true },
  },
  { versionKey: false, collection: 'funnels' },
);
funnelSchema.index({ org_id: 1, is_archived: 1, position: 1, _id: 1 });
funnelSchema.index({ org_id: 1, default_at: -1 });

export type FunnelRepository = ReturnType<typeof createFunnelRepository>;

export function createFunnelRepository(db: Connection) {
  const Funnel = db.model<FunnelDoc>('Funnel', funnelSchema);
  const toRecord = ({ _id, ...rest }: FunnelDoc): FunnelRecord => ({ id: _id, ...rest });

  return {
    async insert(record: FunnelRecord): Promise<void> {
      const { id, ...rest } = record;
      await Funnel.collection.insertOne({ _id: id, ...rest } as never);
    },

    async getById(orgId: string, id: string): Promise<FunnelRecord | null> {
      const doc = await Funnel.findOne({ _id: id, org_id: orgId }).lean<FunnelDoc>();
      return doc ? toRecord(doc) : null;
    },

    /**
     * Every funnel of the organization, archived ones included, in board order. Organizations have a handful
     * of funnels (the plan caps them), so stage lookups by id or name are done on this list in code.
     */
    async listAll(orgId: string): Promise<FunnelRecord[]> {
      const docs = await Funnel.find({ org_id: orgId }).sort({ position: 1, _id: 1 }).lean<FunnelDoc[]>();
      return docs.map(toRecord);
    },

    async list(
      orgId: string,
      options: { includeArchived: boolean; limit: number; after: KeysetPosition | undefined },
    ): Promise<KeysetPage<FunnelRecord>> {
      const { filter, sort } = keyset('position', 'asc', options.after && { ...options.after, value: Number(options.after.value) });
      const base = { org_id: orgId, ...(options.includeArchived ? {} : { is_archived: false }) };
      const rows = await Funnel.find(options.after ? { $and: [base, filter] } : base)
        .sort(sort)
        .limit(options.limit + 1)
        .lean<FunnelDoc[]>();
      const page = toPage(rows, options.limit, (row) => row.position);
      return { ...page, items: page.items.map(toRecord) };
    },

    async count(orgId: string, options: { includeArchived: boolean }): Promise<number> {
      return Funnel.countDocuments({ org_id: orgId, ...(options.includeArchived ? {} : { is_archived: false }) });
    },

    /** The default funnel: the non-archived one made default last (see FunnelRecord.default_at). */
    async getDefault(orgId: string): Promise<FunnelRecord | null> {
      const doc = await Funnel.findOne({ org_id: orgId, is_archived: false, default_at: { $ne: null } })
        .sort({ default_at: -1, _id: -1 })
        .lean<FunnelDoc>();
      return doc ? toRecord(doc) : null;
    },

    /** A change computed from revision `rev`; null when another writer got there first or the funnel is gone. */
    async updateAtRevision(orgId: string, id: string, rev: number, set: Partial<FunnelRecord>): Promise<FunnelRecord | null> {
      const doc = await Funnel.findOneAndUpdate(
        { _id: id, org_id: orgId, rev },
        { $set: set, $inc: { rev: 1 } },
        { new: true },
      ).lean<FunnelDoc>();
      return doc ? toRecord(doc) : null;
    },

    /** Re-ranking after a funnel moved: board order is cosmetic, so these writes are plain and unconditional. */
    async setPosition(orgId: string, id: string, position: number): Promise<void> {
      await Funnel.updateOne({ _id: id, org_id: orgId }, { $set: { position } });
    },
  };
}
