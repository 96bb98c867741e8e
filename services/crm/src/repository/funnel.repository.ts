import { type PageRequest, RevisionedRecords, type Storage } from '@crm/shared';
import { Schema } from 'mongoose';

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

const funnelSchema = new Schema(
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
  },
  { versionKey: false, collection: 'funnels' },
);
funnelSchema.index({ org_id: 1, is_archived: 1, position: 1, _id: 1 });
funnelSchema.index({ org_id: 1, default_at: -1 });

export type FunnelRepository = ReturnType<typeof createFunnelRepository>;

export function createFunnelRepository(storage: Storage) {
  const funnels = new RevisionedRecords<FunnelRecord>(storage, { model: 'Funnel', schema: funnelSchema, what: 'funnel' });
  const listed = (orgId: string, includeArchived: boolean) => ({ org_id: orgId, ...(includeArchived ? {} : { is_archived: false }) });

  return {
    insert: (record: FunnelRecord) => funnels.insert(record),

    getById: (orgId: string, id: string) => funnels.findOne({ _id: id, org_id: orgId }),

    /**
     * Every funnel of the organization, archived ones included, in board order. Organizations have a handful
     * of funnels (the plan caps them), so stage lookups by id or name are done on this list in code.
     */
    listAll: (orgId: string) => funnels.findMany({ org_id: orgId }, { sort: { position: 1, _id: 1 } }),

    list: (orgId: string, options: PageRequest & { includeArchived: boolean }) =>
      funnels.listPage([listed(orgId, options.includeArchived)], { field: 'position', order: 'asc', type: 'number' }, options),

    count: (orgId: string, options: { includeArchived: boolean }) => funnels.count(listed(orgId, options.includeArchived)),

    /** The default funnel: the non-archived one made default last (see FunnelRecord.default_at). */
    getDefault: (orgId: string) =>
      funnels.findOne({ org_id: orgId, is_archived: false, default_at: { $ne: null } }, { default_at: -1, _id: -1 }),

    /** A change computed from revision `rev`; throws WriteConflict when another writer got there first or the funnel is gone. */
    updateAtRevision: (orgId: string, id: string, rev: number, set: Partial<FunnelRecord>) =>
      funnels.updateAtRevision({ _id: id, org_id: orgId }, rev, set),

    /** Re-ranking after a funnel moved: board order is cosmetic, so these writes are plain and unconditional. */
    async setPosition(orgId: string, id: string, position: number): Promise<void> {
      await funnels.update({ _id: id, org_id: orgId }, { position });
    },
  };
}
