import { keyset, recordOf, toPage, TtlCache, type KeysetPage, type KeysetPosition } from '@crm/shared';
import type { AgentStrategy, AgentType, Channel, Weekday } from '@crm/shared/schemas';
import { Schema, type Connection, type FilterQuery } from 'mongoose';

export type HandoffTriggerRecord =
  { type: 'keywords'; keywords: string[] } | { type: 'model_request' } | { type: 'consecutive_failures'; count: number };

export interface BusinessHoursRecord {
  /** Null: the organization's timezone. */
  timezone: string | null;
  /** Null: Monday to Friday 09:00–18:00. A day missing from the map is closed. */
  days: Partial<Record<Weekday, Array<[string, string]>>> | null;
}

export interface AgentRecord {
  id: string;
  org_id: string;
  name: string;
  type: AgentType;
  description: string | null;
  scope: { sources: Channel[]; chatapp_instance_ids: string[]; tags: string[] };
  behavior: {
    strategy: AgentStrategy;
    reply_delay_ms: number;
    max_replies_per_conversation: number | null;
    handoff: { enabled: boolean; assign_to: { id: string; name: string } | null; triggers: HandoffTriggerRecord[] };
    business_hours: BusinessHoursRecord | null;
  };
  ai_config: { instructions: string; model: string | null; temperature: number };
  is_active: boolean;
  /** Deleted agents are kept (inactive) so that their runs in progress finish; no route reads them. */
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  rev: number;
}

type AgentDoc = Omit<AgentRecord, 'id'> & { _id: string };
/** One per organization: the ids of its active agents, the unit the plan limit is enforced on atomically. */
/** The ids holding an active-agent slot, and when each was taken (an activation in flight is not yet active). */
type SlotsDoc = { _id: string; active: string[]; taken_at?: Record<string, Date> };

/** A slot taken this recently is kept by a repair even though its agent is not active yet. */
const SLOT_GRACE_MS = 60_000;

const schema = new Schema<AgentDoc>(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    type: { type: String, required: true },
    description: { type: String, default: null },
    scope: { type: Object, required: true },
    behavior: { type: Object, required: true },
    ai_config: { type: Object, required: true },
    is_active: { type: Boolean, required: true },
    deleted_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    rev: { type: Number, required: true },
  },
  { versionKey: false, collection: 'agents', minimize: false },
);
schema.index({ org_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
// The runner's question for every inbound message: the organization's active agents.
schema.index({ org_id: 1, is_active: 1, created_at: 1 });

const slotsSchema = new Schema<SlotsDoc>(
  {
    _id: { type: String, required: true },
    active: { type: [String], default: [] },
    taken_at: { type: Schema.Types.Mixed, default: () => ({}) },
  },
  { versionKey: false, collection: 'activation_slots' },
);

export interface AgentQuery {
  limit: number;
  after: KeysetPosition | undefined;
  type?: string | null;
  is_active?: boolean | null;
}

export type AgentRepository = ReturnType<typeof createAgentRepository>;

export function createAgentRepository(db: Connection) {
  const Agent = db.model<AgentDoc>('Agent', schema);
  const Slots = db.model<SlotsDoc>('ActivationSlots', slotsSchema);
  const toRecord = (doc: AgentDoc): AgentRecord => recordOf(doc);
  const totals = new TtlCache<number>(2_000);
  const live = (orgId: string) => ({ org_id: orgId, deleted_at: null });

  return {
    collection: Agent.collection,

    async insert(record: AgentRecord): Promise<void> {
      const { id, ...rest } = record;
      await Agent.collection.insertOne({ _id: id, ...rest } as never);
      totals.invalidate(record.org_id);
    },

    async getById(orgId: string, id: string): Promise<AgentRecord | null> {
      const doc = await Agent.findOne({ _id: id, ...live(orgId) }).lean<AgentDoc>();
      return doc ? toRecord(doc) : null;
    },

    /** Deleted ones included: a run that started before the delete finishes with the agent it started with. */
    async getForRun(orgId: string, id: string): Promise<AgentRecord | null> {
      const doc = await Agent.findOne({ _id: id, org_id: orgId }).lean<AgentDoc>();
      return doc ? toRecord(doc) : null;
    },

    async countAll(orgId: string): Promise<number> {
      return totals.get(orgId, () => Agent.countDocuments(live(orgId)).exec());
    },

    async list(orgId: string, query: AgentQuery): Promise<KeysetPage<AgentRecord>> {
      const after = query.after ? { ...query.after, value: new Date(String(query.after.value)) } : undefined;
      const { filter: position, sort } = keyset('created_at', 'desc', after);
      const conditions: FilterQuery<AgentDoc>[] = [live(orgId)];
      if (query.type) conditions.push({ type: query.type });
      if (query.is_active !== undefined && query.is_active !== null) conditions.push({ is_active: query.is_active });
      if (after) conditions.push(position as FilterQuery<AgentDoc>);
      const rows = await Agent.find({ $and: conditions })
        .sort(sort)
        .limit(query.limit + 1)
        .lean<AgentDoc[]>();
      const page = toPage(rows, query.limit, (row) => row.created_at.toISOString());
      return { ...page, items: page.items.map(toRecord) };
    },

    /** Active agents, oldest first: the first one that claims a conversation answers it. */
    async listActive(orgId: string): Promise<AgentRecord[]> {
      const docs = await Agent.find({ org_id: orgId, is_active: true, deleted_at: null })
        .sort({ created_at: 1, _id: 1 })
        .lean<AgentDoc[]>();
      return docs.map(toRecord);
    },

    /** A change computed from revision `rev`; null when another writer changed (or deleted) the agent first. */
    async updateAtRevision(orgId: string, id: string, rev: number, set: Partial<AgentRecord>): Promise<AgentRecord | null> {
      const doc = await Agent.findOneAndUpdate(
        { _id: id, ...live(orgId), rev },
        { $set: set, $inc: { rev: 1 } },
        { new: true },
      ).lean<AgentDoc>();
      return doc ? toRecord(doc) : null;
    },

    async setActive(orgId: string, id: string, active: boolean, at: Date): Promise<AgentRecord | null> {
      const doc = await Agent.findOneAndUpdate(
        { _id: id, ...live(orgId) },
        { $set: { is_active: active, updated_at: at }, $inc: { rev: 1 } },
        { new: true },
      ).lean<AgentDoc>();
      return doc ? toRecord(doc) : null;
    },

    async softDelete(orgId: string, id: string, at: Date): Promise<boolean> {
      const result = await Agent.updateOne(
        { _id: id, ...live(orgId) },
        { $set: { deleted_at: at, is_active: false, updated_at: at }, $inc: { rev: 1 } },
      );
      if (result.modifiedCount > 0) totals.invalidate(orgId);
      return result.modifiedCount > 0;
    },

    /**
     * Takes one of the organization's `limit` activation slots for the agent: one conditional update on the
     * organization's slot document, so two concurrent activations never both take the last slot. True when the
     * agent holds a slot (also when it already did).
     */
    async takeSlot(orgId: string, agentId: string, limit: number, now: Date): Promise<boolean> {
      await Slots.updateOne({ _id: orgId }, { $setOnInsert: { active: [] } }, { upsert: true });
      const result = await Slots.updateOne(
        { _id: orgId, $or: [{ active: agentId }, { [`active.${limit - 1}`]: { $exists: false } }] },
        { $addToSet: { active: agentId }, $set: { [`taken_at.${agentId}`]: now } },
      );
      return result.matchedCount > 0;
    },

    async releaseSlot(orgId: string, agentId: string): Promise<void> {
      await Slots.updateOne({ _id: orgId }, { $pull: { active: agentId }, $unset: { [`taken_at.${agentId}`]: '' } });
    },

    /**
     * Rebuilds the slots from the agents that are active, keeping slots taken within SLOT_GRACE_MS (activations
     * under way): repairs a slot left taken by a process that died between taking it and switching its agent on.
     * Conditional on the slots it read, so a slot taken meanwhile is never dropped (the repair is then skipped).
     */
    async repairSlots(orgId: string, now: Date): Promise<void> {
      const [slots, active] = await Promise.all([
        Slots.findOne({ _id: orgId }).lean<SlotsDoc>(),
        Agent.find({ org_id: orgId, is_active: true, deleted_at: null }, { _id: 1 }).lean<Array<{ _id: string }>>(),
      ]);
      if (!slots) return;
      const recent = slots.active.filter((id) => (slots.taken_at?.[id]?.getTime() ?? 0) > now.getTime() - SLOT_GRACE_MS);
      const rebuilt = [...new Set([...active.map((agent) => agent._id), ...recent])];
      await Slots.updateOne({ _id: orgId, active: slots.active }, { $set: { active: rebuilt } });
    },
  };
}
