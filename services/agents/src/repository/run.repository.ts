import { type OutboxEntry, type PageRequest, RecordStore, type Storage, type StoreFilter } from '@crm/shared';
import type { AgentType, Channel, RunStatus, SkipReason } from '@crm/shared/schemas';
import { randomUUID } from 'node:crypto';
import { Schema } from 'mongoose';

export interface SentMessageRecord {
  message_id: string;
  content: string;
  sent_at: Date;
  delay_ms: number;
}

export interface RunRecord {
  id: string;
  org_id: string;
  /** A snapshot: the run stays readable, with the name it ran under, after the agent is renamed or deleted. */
  agent: { id: string; name: string; type: AgentType };
  conversation_id: string;
  contact_id: string;
  channel: Channel;
  /** The Kafka event that started the run; with agent.id, the run's idempotency key. */
  event_id: string;
  trigger_event: string;
  trigger_message_id: string;
  /** When the contact's message was received: the reply delay counts from it. */
  inbound_at: Date;
  status: RunStatus;
  skip_reason: SkipReason | null;
  error_message: string | null;
  messages_sent: SentMessageRecord[];
  handoff: { triggered: boolean; reason: string; summary: string } | null;
  usage: { tokens: number; cost_cents: number } | null;
  model: string | null;
  duration_ms: number | null;
  started_at: Date;
  completed_at: Date | null;
  /** Internal: `waiting` until `due_at`, then `executing` under a lease; null once finished. */
  phase: 'waiting' | 'executing' | null;
  due_at: Date | null;
  lease_until: Date | null;
  /** Chosen when the run is recorded: a repeated execution (after a crash) sends the same message once. */
  reply_message_id: string;
}

const schema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    agent: { type: Object, required: true },
    conversation_id: { type: String, required: true },
    contact_id: { type: String, required: true },
    channel: { type: String, required: true },
    event_id: { type: String, required: true },
    trigger_event: { type: String, required: true },
    trigger_message_id: { type: String, required: true },
    inbound_at: { type: Date, required: true },
    status: { type: String, required: true },
    skip_reason: { type: String, default: null },
    error_message: { type: String, default: null },
    messages_sent: { type: [Object], default: [] },
    handoff: { type: Object, default: null },
    usage: { type: Object, default: null },
    model: { type: String, default: null },
    duration_ms: { type: Number, default: null },
    started_at: { type: Date, required: true },
    completed_at: { type: Date, default: null },
    phase: { type: String, default: null },
    due_at: { type: Date, default: null },
    lease_until: { type: Date, default: null },
    // Internal: which claim took the run (RunRepository.claimDue), never read back into a RunRecord.
    lease_token: { type: String, default: null },
    reply_message_id: { type: String, required: true },
  },
  { versionKey: false, collection: 'runs', minimize: false },
);
// One run per event and agent: a redelivered event (another replica after a crash) records nothing new.
schema.index({ event_id: 1, 'agent.id': 1 }, { unique: true });
// #72 and its filters, newest first; meta.total counts with the same filters.
schema.index({ org_id: 1, started_at: -1, _id: -1 });
schema.index({ org_id: 1, 'agent.id': 1, started_at: -1, _id: -1 });
schema.index({ org_id: 1, conversation_id: 1, started_at: -1, _id: -1 });
schema.index({ org_id: 1, status: 1, started_at: -1, _id: -1 });
// The scheduler: due waiting runs and executing runs whose replica died.
schema.index({ phase: 1, due_at: 1 });

/** A run this replica claimed to execute. */
export interface ClaimedRun extends RunRecord {
  /** Claimed from waiting: no execution of it started before, so its reply was never sent. */
  first_execution: boolean;
}

export interface RunQuery extends PageRequest {
  agent_id?: string | null;
  conversation_id?: string | null;
  status?: string | null;
  started_after?: string | null;
}

export type RunRepository = ReturnType<typeof createRunRepository>;

export function createRunRepository(storage: Storage) {
  // A finished run carries its events (agent.run.completed, agent.run.failed, agent.handoff.requested) in its outbox.
  const runs = new RecordStore<RunRecord>(storage, { model: 'Run', schema, what: 'run', outbox: true, internal: ['lease_token'] });
  const Run = runs.model;
  const filterOf = (orgId: string, query: Omit<RunQuery, 'limit' | 'after'>): StoreFilter[] => {
    const conditions: StoreFilter[] = [{ org_id: orgId }];
    if (query.agent_id) conditions.push({ 'agent.id': query.agent_id });
    if (query.conversation_id) conditions.push({ conversation_id: query.conversation_id });
    if (query.status) conditions.push({ status: query.status });
    if (query.started_after) conditions.push({ started_at: { $gte: new Date(query.started_after) } });
    return conditions;
  };

  return {
    collection: runs.collection,

    /** False when this event already has its run for this agent. */
    insert: (record: RunRecord) => runs.insertIfNew(record),

    getById: (orgId: string, id: string) => runs.findOne({ _id: id, org_id: orgId }),

    getByEvent: (eventId: string, agentId: string) => runs.findOne({ event_id: eventId, 'agent.id': agentId }),

    /** Catalogue exception: a runs list counts with its filters. */
    count: (orgId: string, query: Omit<RunQuery, 'limit' | 'after'>) => runs.count({ $and: filterOf(orgId, query) }),

    list: (orgId: string, query: RunQuery) =>
      runs.listPage(filterOf(orgId, query), { field: 'started_at', order: 'desc', type: 'date' }, query),

    /** Replies the agent already sent in the conversation: its completed runs there. */
    async countReplies(orgId: string, conversationId: string, agentId: string): Promise<number> {
      return Run.countDocuments({
        org_id: orgId,
        conversation_id: conversationId,
        'agent.id': agentId,
        status: 'completed',
        'messages_sent.0': { $exists: true },
      }).exec();
    },

    /**
     * Takes up to `limit` due runs, oldest first: waiting runs whose delay is over, and executing runs whose replica
     * stopped renewing its lease. One read and one conditional update for the lot (a round trip per run capped a
     * replica at ~15 claims/s on a loaded machine); the update checks each run again, so of replicas racing for it
     * exactly one takes it, and its token tells each replica which ones it won when it did not win them all.
     */
    async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedRun[]> {
      const due = {
        $or: [
          { phase: 'waiting', due_at: { $lte: now } },
          { phase: 'executing', lease_until: { $lt: now } },
        ],
      };
      const candidates = await runs.findMany(due, { sort: { due_at: 1 }, limit });
      if (candidates.length === 0) return [];
      const ids = candidates.map((run) => run.id);
      const token = randomUUID();
      const claimed = await Run.updateMany(
        { _id: { $in: ids }, ...due },
        { $set: { phase: 'executing', lease_until: leaseUntil, lease_token: token } },
      );
      const asClaimed = (run: RunRecord): ClaimedRun => ({
        ...run,
        phase: 'executing',
        lease_until: leaseUntil,
        first_execution: run.phase === 'waiting',
      });
      if (claimed.modifiedCount === candidates.length) return candidates.map(asClaimed);
      const won = await Run.find({ _id: { $in: ids }, lease_token: token }, { _id: 1 }).lean<Array<{ _id: string }>>();
      const wonIds = new Set(won.map((doc) => doc._id));
      return candidates.filter((run) => wonIds.has(run.id)).map(asClaimed);
    },

    /** The next moment a run falls due (a waiting run's due_at, or an executing run's lease end). */
    async nextDueAt(): Promise<Date | null> {
      const [waiting, executing] = await Promise.all([
        Run.findOne({ phase: 'waiting' }, { due_at: 1 }).sort({ due_at: 1 }).lean<Pick<RunRecord, 'due_at'>>(),
        Run.findOne({ phase: 'executing' }, { lease_until: 1 }).sort({ lease_until: 1 }).lean<Pick<RunRecord, 'lease_until'>>(),
      ]);
      const times = [waiting?.due_at, executing?.lease_until].filter((t): t is Date => t instanceof Date);
      return times.length ? new Date(Math.min(...times.map((t) => t.getTime()))) : null;
    },

    async renewLease(id: string, leaseUntil: Date): Promise<boolean> {
      const result = await Run.updateOne({ _id: id, phase: 'executing' }, { $set: { lease_until: leaseUntil } });
      return result.matchedCount > 0;
    },

    /**
     * Skips a waiting run: a later message of the conversation replaced it (`superseded`), or another agent claimed
     * the conversation after it was recorded; false when it is already executing.
     */
    async skipWaiting(id: string, reason: SkipReason, at: Date): Promise<boolean> {
      const result = await Run.updateOne(
        { _id: id, phase: 'waiting' },
        { $set: { phase: null, due_at: null, status: 'skipped', skip_reason: reason, completed_at: at } },
      );
      return result.modifiedCount > 0;
    },

    /**
     * Ends a run this replica executes, with its events in the same conditional update (so a run finished twice,
     * after a lease takeover, raises them once); false when it was not executing any more.
     */
    async finish(id: string, set: Partial<RunRecord>, events: OutboxEntry[] = []): Promise<boolean> {
      const finished = await runs.update(
        { _id: id, phase: 'executing' },
        { ...set, phase: null, lease_until: null, due_at: null },
        { events },
      );
      return finished !== null;
    },
  };
}
