import { isDuplicateKeyError, keyset, recordOf, toPage, type KeysetPage, type KeysetPosition } from '@crm/shared';
import type { AgentType, Channel, RunStatus, SkipReason } from '@crm/shared/schemas';
import { Schema, type Connection, type FilterQuery } from 'mongoose';

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

type RunDoc = Omit<RunRecord, 'id'> & { _id: string };

const schema = new Schema<RunDoc>(
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

export interface RunQuery {
  limit: number;
  after: KeysetPosition | undefined;
  agent_id?: string | null;
  conversation_id?: string | null;
  status?: string | null;
  started_after?: string | null;
}

export type RunRepository = ReturnType<typeof createRunRepository>;

export function createRunRepository(db: Connection) {
  const Run = db.model<RunDoc>('Run', schema);
  const toRecord = (doc: RunDoc): RunRecord => recordOf(doc);
  const filterOf = (orgId: string, query: Omit<RunQuery, 'limit' | 'after'>): FilterQuery<RunDoc>[] => {
    const conditions: FilterQuery<RunDoc>[] = [{ org_id: orgId }];
    if (query.agent_id) conditions.push({ 'agent.id': query.agent_id });
    if (query.conversation_id) conditions.push({ conversation_id: query.conversation_id });
    if (query.status) conditions.push({ status: query.status });
    if (query.started_after) conditions.push({ started_at: { $gte: new Date(query.started_after) } });
    return conditions;
  };

  return {
    collection: Run.collection,

    /** False when this event already has its run for this agent. */
    async insert(record: RunRecord): Promise<boolean> {
      const { id, ...rest } = record;
      try {
        await Run.collection.insertOne({ _id: id, ...rest } as never);
        return true;
      } catch (error) {
        if (isDuplicateKeyError(error)) return false;
        throw error;
      }
    },

    async getById(orgId: string, id: string): Promise<RunRecord | null> {
      const doc = await Run.findOne({ _id: id, org_id: orgId }).lean<RunDoc>();
      return doc ? toRecord(doc) : null;
    },

    async getByEvent(eventId: string, agentId: string): Promise<RunRecord | null> {
      const doc = await Run.findOne({ event_id: eventId, 'agent.id': agentId }).lean<RunDoc>();
      return doc ? toRecord(doc) : null;
    },

    /** Catalogue exception: a runs list counts with its filters. */
    async count(orgId: string, query: Omit<RunQuery, 'limit' | 'after'>): Promise<number> {
      return Run.countDocuments({ $and: filterOf(orgId, query) }).exec();
    },

    async list(orgId: string, query: RunQuery): Promise<KeysetPage<RunRecord>> {
      const after = query.after ? { ...query.after, value: new Date(String(query.after.value)) } : undefined;
      const { filter: position, sort } = keyset('started_at', 'desc', after);
      const conditions = filterOf(orgId, query);
      if (after) conditions.push(position as FilterQuery<RunDoc>);
      const rows = await Run.find({ $and: conditions })
        .sort(sort)
        .limit(query.limit + 1)
        .lean<RunDoc[]>();
      const page = toPage(rows, query.limit, (row) => row.started_at.toISOString());
      return { ...page, items: page.items.map(toRecord) };
    },

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
     * Takes the oldest due run: a waiting run whose delay is over, or an executing run whose replica stopped
     * renewing its lease. One conditional update, so exactly one replica executes it at a time.
     */
    async claimDue(now: Date, leaseUntil: Date): Promise<RunRecord | null> {
      const doc = await Run.findOneAndUpdate(
        {
          $or: [
            { phase: 'waiting', due_at: { $lte: now } },
            { phase: 'executing', lease_until: { $lt: now } },
          ],
        },
        { $set: { phase: 'executing', lease_until: leaseUntil } },
        { new: true, sort: { due_at: 1 } },
      ).lean<RunDoc>();
      return doc ? toRecord(doc) : null;
    },

    /** The next moment a run falls due (a waiting run's due_at, or an executing run's lease end). */
    async nextDueAt(): Promise<Date | null> {
      const [waiting, executing] = await Promise.all([
        Run.findOne({ phase: 'waiting' }, { due_at: 1 }).sort({ due_at: 1 }).lean<RunDoc>(),
        Run.findOne({ phase: 'executing' }, { lease_until: 1 }).sort({ lease_until: 1 }).lean<RunDoc>(),
      ]);
      const times = [waiting?.due_at, executing?.lease_until].filter((t): t is Date => t instanceof Date);
      return times.length ? new Date(Math.min(...times.map((t) => t.getTime()))) : null;
    },

    async renewLease(id: string, leaseUntil: Date): Promise<boolean> {
      const result = await Run.updateOne({ _id: id, phase: 'executing' }, { $set: { lease_until: leaseUntil } });
      return result.matchedCount > 0;
    },

    /** A waiting run that a later message of the conversation replaced; false when it is already executing. */
    async supersede(id: string, at: Date): Promise<boolean> {
      const result = await Run.updateOne(
        { _id: id, phase: 'waiting' },
        { $set: { phase: null, due_at: null, status: 'skipped', skip_reason: 'superseded', completed_at: at } },
      );
      return result.modifiedCount > 0;
    },

    /** Ends a run this replica executes; false when it was not executing any more. */
    async finish(id: string, set: Partial<RunRecord>): Promise<boolean> {
      const result = await Run.updateOne(
        { _id: id, phase: 'executing' },
        { $set: { ...set, phase: null, lease_until: null, due_at: null } },
      );
      return result.modifiedCount > 0;
    },
  };
}
