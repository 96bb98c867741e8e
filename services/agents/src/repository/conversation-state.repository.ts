import { RecordStore, type Storage } from '@crm/shared';
import { Schema } from 'mongoose';

/** What the runner remembers of a conversation: who answers it, whether it was handed off, the run that waits. */
export interface ConversationStateRecord {
  /** The conversation id. */
  id: string;
  org_id: string;
  /** The agent that answers the conversation; other agents skip it (`another_agent_answering`). */
  agent_id: string | null;
  /** Handed to a person: no agent answers until the conversation is unassigned. */
  handed_off: boolean;
  /** Failed runs in a row of the answering agent (the `consecutive_failures` handoff trigger). */
  consecutive_failures: number;
  /** The waiting run that will answer; a later message replaces it (one answer to a burst of messages). */
  pending_run_id: string | null;
}

const schema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    agent_id: { type: String, default: null },
    handed_off: { type: Boolean, default: false },
    consecutive_failures: { type: Number, default: 0 },
    pending_run_id: { type: String, default: null },
  },
  { versionKey: false, collection: 'conversation_states', minimize: false },
);

const EMPTY = { agent_id: null, handed_off: false, consecutive_failures: 0, pending_run_id: null };

export type ConversationStateRepository = ReturnType<typeof createConversationStateRepository>;

type StateFields = Partial<Omit<ConversationStateRecord, 'id' | 'org_id'>>;

/** Every change is one conditional update on the state as it was read: replicas never overwrite each other. */
export function createConversationStateRepository(storage: Storage) {
  const states = new RecordStore<ConversationStateRecord>(storage, { model: 'ConversationState', schema, what: 'conversation state' });

  return {
    collection: states.collection,

    /** The state, created empty on its first read, so that the conditional writes after it have a record to match. */
    async get(orgId: string, conversationId: string): Promise<ConversationStateRecord> {
      const state = await states.update({ _id: conversationId, org_id: orgId }, { $setOnInsert: EMPTY }, { upsert: true });
      if (!state) throw new Error('conversation state upsert returned nothing');
      return state;
    },

    /** The state as stored, without creating it: what a conversation the runner never saw has is the empty state. */
    async read(orgId: string, conversationId: string): Promise<ConversationStateRecord> {
      return (await states.findOne({ _id: conversationId, org_id: orgId })) ?? { id: conversationId, org_id: orgId, ...EMPTY };
    },

    /** Sets `set` when the fields of `expected` still hold; false when another writer changed them. */
    compareAndSet: async (orgId: string, conversationId: string, expected: StateFields, set: StateFields): Promise<boolean> =>
      (await states.update({ _id: conversationId, org_id: orgId, ...expected }, set)) !== null,

    recordFailure: async (orgId: string, conversationId: string): Promise<number> =>
      (await states.update({ _id: conversationId, org_id: orgId }, { $inc: { consecutive_failures: 1 } }))?.consecutive_failures ?? 0,
  };
}
