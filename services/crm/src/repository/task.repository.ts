import { type Order, type OutboxEntry, type PageRequest, RecordStore, type Storage, type StoreFilter, TtlCache } from '@crm/shared';
import { Schema } from 'mongoose';

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

/** due_key: due_at, or NO_DUE_DATE: keyset paging needs a total order, and tasks without a due date sort last in `asc`. */
const NO_DUE_DATE = new Date('9999-12-31T23:59:59.999Z');

const taskSchema = new Schema(
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
  },
  { versionKey: false, collection: 'tasks', minimize: false },
);
// One index per sort of the list, each led by the tenant and the soft-delete flag every query carries.
taskSchema.index({ org_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
taskSchema.index({ org_id: 1, deleted_at: 1, due_key: 1, _id: 1 });

export type TaskSort = 'created_at' | 'due_at';

export interface TaskQuery extends PageRequest {
  sort: TaskSort;
  order: Order;
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

export function createTaskRepository(storage: Storage) {
  const tasks = new RecordStore<TaskRecord>(storage, {
    model: 'Task',
    schema: taskSchema,
    what: 'task',
    outbox: true,
    internal: ['due_key'],
    derive: (fields) => (fields.due_at !== undefined ? { due_key: fields.due_at ?? NO_DUE_DATE } : {}),
  });
  const live = (orgId: string) => ({ org_id: orgId, deleted_at: null });
  // meta.total may be approximate (spec §8): a few seconds old, refreshed at once after this process's writes.
  const totals = new TtlCache<number>(5_000);

  return {
    collection: tasks.collection,

    async insert(record: TaskRecord, events: OutboxEntry[]) {
      const stored = await tasks.insert(record, { events });
      totals.invalidate(record.org_id);
      return stored;
    },

    getById: (orgId: string, id: string) => tasks.findOne({ _id: id, ...live(orgId) }),

    /** Approximate size of the organization's list: live tasks, no filters (spec §8 rule 4). */
    countLive: (orgId: string) => totals.get(orgId, () => tasks.count(live(orgId))),

    list: (orgId: string, query: TaskQuery) =>
      tasks.listPage([live(orgId), ...filtersOf(query)], { field: SORT_FIELD[query.sort], order: query.order, type: 'date' }, query),

    /**
     * Sets fields of a live task, optionally only when it is in `whenStatus`, with its events in the same
     * single-document update. Returns null when no live task (in that status) matched.
     */
    async update(orgId: string, id: string, set: Partial<TaskRecord>, events: OutboxEntry[] = [], whenStatus?: TaskStatus) {
      const updated = await tasks.update({ _id: id, ...live(orgId), ...(whenStatus ? { status: whenStatus } : {}) }, set, { events });
      if (set.deleted_at) totals.invalidate(orgId);
      return updated;
    },
  };
}

function filtersOf(query: TaskQuery): StoreFilter[] {
  const filters: StoreFilter[] = [];
  for (const field of ['status', 'type', 'assigned_to', 'contact_id', 'deal_id', 'company_id'] as const) {
    const value = query[field];
    if (value) filters.push({ [field]: value });
  }
  if (query.due_after) filters.push({ due_at: { $gte: new Date(query.due_after) } });
  if (query.due_before) filters.push({ due_at: { $lt: new Date(query.due_before) } });
  return filters;
}
