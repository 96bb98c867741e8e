import { AppError, invalidReference, newId, newEvent, notFound } from '@crm/shared';
import { createTaskBody, parseOrThrow, updateTaskBody, type UpdateTaskBody } from '@crm/shared/schemas';
import type { TaskQuery, TaskRecord, TaskSort, TaskStatus } from '../repository/task.repository';
import type { CrmDeps } from './deps';
import { viewTask, viewTasks, type TaskView } from './task.view';

/** The orders of GET /v1/tasks. */
export const TASK_SORTS = ['created_at', 'due_at'] as const satisfies readonly TaskSort[];

export async function listTasks(deps: CrmDeps, orgId: string, query: TaskQuery) {
  const [page, total] = await Promise.all([deps.tasks.list(orgId, query), deps.tasks.countLive(orgId)]);
  return { items: await viewTasks(deps, orgId, page.items), hasMore: page.hasMore, next: page.next, total };
}

export async function getTask(deps: CrmDeps, orgId: string, id: string): Promise<TaskView> {
  return viewTask(deps, orgId, await requireTask(deps, orgId, id));
}

export async function createTask(deps: CrmDeps, orgId: string, rawBody: unknown): Promise<TaskView> {
  const body = parseOrThrow(createTaskBody, rawBody);
  await checkReferences(deps, orgId, body);
  const now = deps.now();
  const record: TaskRecord = {
    id: newId('task'),
    org_id: orgId,
    title: body.title,
    description: body.description ?? null,
    type: body.type,
    priority: body.priority,
    status: 'open',
    due_at: body.due_at ? new Date(body.due_at) : null,
    completed_at: null,
    assigned_to: body.assigned_to ?? null,
    contact_id: body.contact_id ?? null,
    deal_id: body.deal_id ?? null,
    company_id: body.company_id ?? null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  const view = await viewTask(deps, orgId, record);
  await deps.tasks.insert(record, [newEvent(orgId, 'task.created', { object: view }, now)]);
  if (record.due_at) deps.taskAlarmArmed(record.due_at);
  return view;
}

/** Partial update; references are checked before the write. Task edits emit no event (catalogue §6). */
export async function updateTask(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<TaskView> {
  const body = parseOrThrow(updateTaskBody, rawBody);
  const current = await requireTask(deps, orgId, id);
  await checkReferences(deps, orgId, body);
  const { due_at: dueAt, ...rest } = body;
  const set: Partial<TaskRecord> = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  // A new due time arms the task's alarms again (task.due, task.overdue); the same one leaves them as they are.
  const due = dueAt === undefined ? undefined : dueAt === null ? null : new Date(dueAt);
  if (due !== undefined && due?.getTime() !== current.due_at?.getTime()) set.due_at = due;
  const updated = await deps.tasks.update(orgId, id, { ...set, updated_at: deps.now() });
  if (!updated) throw notFound('task');
  if (set.due_at) deps.taskAlarmArmed(set.due_at);
  return viewTask(deps, orgId, updated);
}

/** Soft delete: the task must outlive the relay's publication of a pending task.created. */
export async function deleteTask(deps: CrmDeps, orgId: string, id: string): Promise<void> {
  const at = deps.now();
  if (!(await deps.tasks.update(orgId, id, { deleted_at: at, updated_at: at }))) throw notFound('task');
}

/** open → completed, with task.completed in the same conditional write. */
export async function completeTask(deps: CrmDeps, orgId: string, id: string): Promise<TaskView> {
  return transition(deps, orgId, id, 'open', (at) => ({ status: 'completed', completed_at: at }), true);
}

/** completed → open; no event (catalogue §6). */
export async function reopenTask(deps: CrmDeps, orgId: string, id: string): Promise<TaskView> {
  return transition(deps, orgId, id, 'completed', () => ({ status: 'open', completed_at: null }), false);
}

/**
 * A state action: the write is conditional on the status the action starts from, so two concurrent completes
 * give one success (and one event) and one INVALID_STATUS.
 */
async function transition(
  deps: CrmDeps,
  orgId: string,
  id: string,
  from: TaskStatus,
  change: (at: Date) => Partial<TaskRecord>,
  emits: boolean,
): Promise<TaskView> {
  const current = await requireTask(deps, orgId, id);
  if (current.status !== from) throw invalidStatus(current.status);
  const at = deps.now();
  const set = { ...change(at), updated_at: at };
  const view = await viewTask(deps, orgId, { ...current, ...set });
  const events = emits ? [newEvent(orgId, 'task.completed', { object: view }, at)] : [];
  const written = await deps.tasks.update(orgId, id, set, events, from);
  if (!written) throw invalidStatus((await requireTask(deps, orgId, id)).status);
  return view;
}

const invalidStatus = (status: TaskStatus) =>
  new AppError('INVALID_STATUS', `The task is ${status}; this action does not apply.`, { status });

async function requireTask(deps: CrmDeps, orgId: string, id: string): Promise<TaskRecord> {
  const record = await deps.tasks.getById(orgId, id);
  if (!record) throw notFound('task');
  return record;
}

/** Every reference must resolve inside the organization; the assignee must be an active member. */
async function checkReferences(
  deps: CrmDeps,
  orgId: string,
  body: Pick<UpdateTaskBody, 'assigned_to' | 'contact_id' | 'deal_id' | 'company_id'>,
): Promise<void> {
  if (body.assigned_to && !(await deps.members.getActive(orgId, body.assigned_to))) throw invalidReference('assigned_to', body.assigned_to);
  if (body.contact_id && !(await deps.refs.exists('contacts', orgId, body.contact_id)))
    throw invalidReference('contact_id', body.contact_id);
  if (body.deal_id && !(await deps.refs.exists('deals', orgId, body.deal_id))) throw invalidReference('deal_id', body.deal_id);
  if (body.company_id && !(await deps.refs.exists('companies', orgId, body.company_id)))
    throw invalidReference('company_id', body.company_id);
}
