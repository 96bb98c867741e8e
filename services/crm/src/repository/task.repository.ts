import {
  keyset,
  type KeysetPage,
  type KeysetPosition,
  type Order,
  OUTBOX_FIELDS,
  type OutboxEntry,
  outboxOnInsert,
  recordOf,
  toPage,
  updateWithEvents,
  TtlCache,
} from '@crm/shared';
import { Schema, type Connection, type FilterQuery } from 'mongoose';

export type TaskStatus = 'open' | 'completed';

export interface TaskRecord {
  id: string;
  org_id: string;
  title: string;
  description: string | null;
  type: string;
  priority: string;
  status: TaskStatus;
  due_at: Date | null;
  completed_at: Date | null;
  assigned_to: string | null;
  contact_id: string | null;
  deal_id: string | null;
  company_id: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

interface TaskDoc extends Omit<TaskRecord, 'id'> {
  _id: string;
  /** due_at, or NO_DUE_DATE: keyset paging needs a total order, and tasks without a due date sort last in `asc`. */
  due_key: Date;
}

const NO_DUE_DATE = new Date('9999-12-31T23:59:59.999Z');
const dueKey = (dueAt: Date | null): Date => dueAt ?? NO_DUE_DATE;

const taskSchema = new Schema<TaskDoc>(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    title: { type: String, required: true },
    description: { type: String, default: null },
    type: { type: String, required: true },
    priority: { type: String, required: true },
    status: { type: String, required: true },
    due_at: { type: Date, default: null },
    due_key: { type: Date, required: true },
    completed_at: { type: Date, default: null },
    assigned_to: { type: String, default: null },
    contact_id: { type: String, default: null },
    deal_id: { type: String, default: null },
    company_id: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    deleted_at: { type: Date, default: null },
    ...OUTBOX_FIELDS,
  },
  { versionKey: false, collection: 'tasks', minimize: false },
);
// One index per sort of the list, each led by the tenant and the soft-delete flag every query carries.
taskSchema.index({ org_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
taskSchema.index({ org_id: 1, deleted_at: 1, due_key: 1, _id: 1 });
taskSchema.index({ _outbox_pending: 1 });

export type TaskSort = 'created_at' | 'due_at';

export interface TaskQuery {
  sort: TaskSort;
  order: Order;
  limit: number;
  after: KeysetPosition | undefined;
  status?: string | null;
  type?: string | null;
  assigned_to?: string | null;
  contact_id?: string | null;
  deal_id?: string | null;
  company_id?: string | null;
  due_after?: string | null;
  due_before?: string | null;
}

const SORT_FIELD: Record<TaskSort, string> = { created_at: 'created_at', due_at: 'due_key' };

export type TaskRepository = ReturnType<typeof createTaskRepository>;

export function createTaskRepository(db: Connection) {
  const Task = db.model<TaskDoc>('Task', taskSchema);
  const toRecord = (doc: TaskDoc): TaskRecord => recordOf(doc, ['due_key']);
  const live = (orgId: string) => ({ org_id: orgId, deleted_at: null });
  // meta.total may be approximate (spec §8): a few seconds old, refreshed at once after this process's writes.
  const totals = new TtlCache<number>(5_000);
  /** due_key follows due_at in every write that sets it. */
  const withDueKey = (set: Partial<TaskRecord>) => (set.due_at !== undefined ? { ...set, due_key: dueKey(set.due_at) } : set);

  return {
    collection: Task.collection,

    async insert(record: TaskRecord, events: OutboxEntry[]): Promise<void> {
      const { id, ...rest } = record;
      await Task.collection.insertOne({ _id: id, ...rest, due_key: dueKey(record.due_at), ...outboxOnInsert(events) } as never);
      totals.invalidate(record.org_id);
    },

    async getById(orgId: string, id: string): Promise<TaskRecord | null> {
      const doc = await Task.findOne({ _id: id, ...live(orgId) }).lean<TaskDoc>();
      return doc ? toRecord(doc) : null;
    },

    /** Approximate size of the organization's list: live tasks, no filters (spec §8 rule 4). */
    async countLive(orgId: string): Promise<number> {
      return totals.get(orgId, () => Task.countDocuments(live(orgId)).exec());
    },

    async list(orgId: string, query: TaskQuery): Promise<KeysetPage<TaskRecord>> {
      const field = SORT_FIELD[query.sort];
      const after = query.after && { ...query.after, value: new Date(String(query.after.value)) };
      const { filter: position, sort } = keyset(field, query.order, after);
      const conditions: FilterQuery<TaskDoc>[] = [live(orgId), ...filtersOf(query)];
      if (after) conditions.push(position as FilterQuery<TaskDoc>);
      const rows = await Task.find({ $and: conditions })
        .sort(sort)
        .limit(query.limit + 1)
        .lean<TaskDoc[]>();
      const page = toPage(rows, query.limit, (row) => (query.sort === 'due_at' ? row.due_key : row.created_at).toISOString());
      return { ...page, items: page.items.map(toRecord) };
    },

    /**
     * Sets fields of a live task, optionally only when it is in `whenStatus`, with its events in the same
     * single-document update. Returns null when no live task (in that status) matched.
     */
    async update(
      orgId: string,
      id: string,
      set: Partial<TaskRecord>,
      events: OutboxEntry[] = [],
      whenStatus?: TaskStatus,
    ): Promise<TaskRecord | null> {
      const fields = withDueKey(set);
      const update = updateWithEvents(fields, events);
      const filter = { _id: id, ...live(orgId), ...(whenStatus ? { status: whenStatus } : {}) };
      const doc = await Task.findOneAndUpdate(filter, update, { new: true }).lean<TaskDoc>();
      if (set.deleted_at) totals.invalidate(orgId);
      return doc ? toRecord(doc) : null;
    },
  };
}

function filtersOf(query: TaskQuery): FilterQuery<TaskDoc>[] {
  const filters: FilterQuery<TaskDoc>[] = [];
  for (const field of ['status', 'type', 'assigned_to', 'contact_id', 'deal_id', 'company_id'] as const) {
    const value = query[field];
    if (value) filters.push({ [field]: value });
  }
  if (query.due_after) filters.push({ due_at: { $gte: new Date(query.due_after) } });
  if (query.due_before) filters.push({ due_at: { $lt: new Date(query.due_before) } });
  return filters;
}
