import {
  type Order,
  type OutboxEntry,
  type PageRequest,
  RecordStore,
  type Storage,
  type StoreFilter,
  approximateTotals,
} from '@crm/shared';
import { type ClientSession, Schema } from 'mongoose';

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
  /**
   * The task's alarms (task.due, task.overdue): armed when due_at is set or changed, disarmed by the firing that
   * raised the event. They fire only while the task is open; see domain/task-alarms.ts.
   */
  due_alarm_at?: Date | null;
  overdue_alarm_at?: Date | null;
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
    due_alarm_at: { type: Date, default: null },
    overdue_alarm_at: { type: Date, default: null },
  },
  { versionKey: false, collection: 'tasks', minimize: false },
);
// One index per sort of the list, each led by the tenant and the soft-delete flag every query carries.
taskSchema.index({ org_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
taskSchema.index({ org_id: 1, deleted_at: 1, due_key: 1, _id: 1 });
// The alarm scheduler's queries, across organizations: armed alarms of open tasks, earliest first.
taskSchema.index({ status: 1, deleted_at: 1, due_alarm_at: 1 });
taskSchema.index({ status: 1, deleted_at: 1, overdue_alarm_at: 1 });

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

export type TaskAlarm = 'due' | 'overdue';

const ALARM_FIELD = { due: 'due_alarm_at', overdue: 'overdue_alarm_at' } as const;

/** `overdueAfterMs`: how long after its due time an open task is overdue (TASK_OVERDUE_AFTER_MS). */
export function createTaskRepository(storage: Storage, options: { overdueAfterMs: number } = { overdueAfterMs: 3_600_000 }) {
  const tasks = new RecordStore<TaskRecord>(storage, {
    model: 'Task',
    schema: taskSchema,
    what: 'task',
    outbox: true,
    internal: ['due_key'],
    // Setting or changing due_at re-arms both alarms (the caller leaves an unchanged due_at out).
    derive: (fields) =>
      fields.due_at !== undefined
        ? {
            due_key: fields.due_at ?? NO_DUE_DATE,
            due_alarm_at: fields.due_at,
            overdue_alarm_at: fields.due_at ? new Date(fields.due_at.getTime() + options.overdueAfterMs) : null,
          }
        : {},
  });
  // An overdue alarm waits for the task's due alarm: task.due always comes first.
  const armed = (alarm: TaskAlarm) => ({ status: 'open', deleted_at: null, ...(alarm === 'overdue' ? { due_alarm_at: null } : {}) });
  const live = (orgId: string) => ({ org_id: orgId, deleted_at: null });
  // meta.total may be approximate (spec §8): seconds old (longer for large organizations: approximate-totals.ts),
  // refreshed at once after this process's writes.
  const totals = approximateTotals();

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

    /** A merge: the tasks of the contacts `from` now belong to the contact `to` (idempotent). */
    moveToContact: (orgId: string, from: string[], to: string, session?: ClientSession) =>
      tasks.updateMany({ org_id: orgId, contact_id: { $in: from } }, { contact_id: to }, { session }),

    /** Open tasks whose `alarm` is due, earliest first (the scheduler's batch, across organizations). */
    dueAlarms: (alarm: TaskAlarm, now: Date, limit: number) =>
      tasks.findMany({ ...armed(alarm), [ALARM_FIELD[alarm]]: { $lte: now } }, { sort: { [ALARM_FIELD[alarm]]: 1 }, limit }),

    async nextAlarmAt(): Promise<Date | null> {
      const next = await Promise.all(
        (['due', 'overdue'] as const).map((alarm) =>
          tasks.findOne({ ...armed(alarm), [ALARM_FIELD[alarm]]: { $ne: null } }, { [ALARM_FIELD[alarm]]: 1 }),
        ),
      );
      const times = next.map((task, i) => task?.[ALARM_FIELD[i === 0 ? 'due' : 'overdue']]).filter((at): at is Date => at instanceof Date);
      return times.length ? new Date(Math.min(...times.map((at) => at.getTime()))) : null;
    },

    /**
     * Disarms an alarm as read, with its event, in one conditional update: of several replicas one fires it, and
     * a task completed, deleted or rescheduled since it was read does not fire. Answers whether this one fired.
     */
    async fireAlarm(read: TaskRecord, alarm: TaskAlarm, events: OutboxEntry[]): Promise<boolean> {
      const field = ALARM_FIELD[alarm];
      const fired = await tasks.update({ _id: read.id, ...armed(alarm), [field]: read[field] ?? null }, { [field]: null }, { events });
      return fired !== null;
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
