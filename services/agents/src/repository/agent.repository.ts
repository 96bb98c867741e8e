import { type PageRequest, RevisionedRecords, type Storage, type StoreFilter, approximateTotals } from '@crm/shared';
import type { AgentStrategy, AgentType, Channel, Weekday } from '@crm/shared/schemas';
import { Schema } from 'mongoose';

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
}

/**
 * One per organization: the ids holding an active-agent slot (the unit the plan limit is enforced on atomically),
 * and when each was taken (an activation in flight is not yet active).
 */
type SlotsDoc = { _id: string; active: string[]; taken_at?: Record<string, Date> };

/** A slot taken this recently is kept by a repair even though its agent is not active yet. */
const SLOT_GRACE_MS = 60_000;

const schema = new Schema(
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

export interface AgentQuery extends PageRequest {
  type?: string | null;
  is_active?: boolean | null;
}

export type AgentRepository = ReturnType<typeof createAgentRepository>;

export function createAgentRepository(storage: Storage) {
  const agents = new RevisionedRecords<AgentRecord>(storage, { model: 'Agent', schema, what: 'AI agent' });
  const Agent = agents.model;
  const Slots = storage.connection.model<SlotsDoc>('ActivationSlots', slotsSchema);
  const totals = approximateTotals();
  const live = (orgId: string) => ({ org_id: orgId, deleted_at: null });

  return {
    collection: agents.collection,

    async insert(record: AgentRecord) {
      const stored = await agents.insert(record);
      totals.invalidate(record.org_id);
      return stored;
    },

    getById: (orgId: string, id: string) => agents.findOne({ _id: id, ...live(orgId) }),

    /** Deleted ones included: a run that started before the delete finishes with the agent it started with. */
    getForRun: (orgId: string, id: string) => agents.findOne({ _id: id, org_id: orgId }),

    countAll: (orgId: string) => totals.get(orgId, () => agents.count(live(orgId))),

    list(orgId: string, query: AgentQuery) {
      const conditions: StoreFilter[] = [live(orgId)];
      if (query.type) conditions.push({ type: query.type });
      if (query.is_active !== undefined && query.is_active !== null) conditions.push({ is_active: query.is_active });
      return agents.listPage(conditions, { field: 'created_at', order: 'desc', type: 'date' }, query);
    },

    /** Active agents, oldest first: the first one that claims a conversation answers it. */
    listActive: (orgId: string) => agents.findMany({ ...live(orgId), is_active: true }, { sort: { created_at: 1, _id: 1 } }),

    /** A change computed from revision `rev`; throws WriteConflict when another writer changed (or deleted) the agent first. */
    updateAtRevision: (orgId: string, id: string, rev: number, set: Partial<AgentRecord>) =>
      agents.updateAtRevision({ _id: id, ...live(orgId) }, rev, set),

    setActive: (orgId: string, id: string, active: boolean, at: Date) =>
      agents.update({ _id: id, ...live(orgId) }, { is_active: active, updated_at: at }),

    async softDelete(orgId: string, id: string, at: Date): Promise<boolean> {
      const deleted = await agents.update({ _id: id, ...live(orgId) }, { deleted_at: at, is_active: false, updated_at: at });
      if (deleted) totals.invalidate(orgId);
      return deleted !== null;
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
        Agent.find({ ...live(orgId), is_active: true }, { _id: 1 }).lean<Array<{ _id: string }>>(),
      ]);
      if (!slots) return;
      const recent = slots.active.filter((id) => (slots.taken_at?.[id]?.getTime() ?? 0) > now.getTime() - SLOT_GRACE_MS);
      const rebuilt = [...new Set([...active.map((agent) => agent._id), ...recent])];
      await Slots.updateOne({ _id: orgId, active: slots.active }, { $set: { active: rebuilt } });
    },
  };
}
