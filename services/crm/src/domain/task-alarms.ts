import { type DueWork, newEvent } from '@crm/shared';
import type { TaskAlarm } from '../repository/task.repository';
import type { CrmDeps } from './deps';
import { viewTask } from './task.view';

const BATCH = 50;

/**
 * Task reminders, as the shared DueScheduler runs them. A task with a due time has two alarms, armed when due_at
 * is set or changed: task.due at due_at, and task.overdue when it is still open TASK_OVERDUE_AFTER_MS later
 * (default one hour; "overdue" means the grace after the due time has passed without the task being completed).
 * Only an open task fires; firing disarms the alarm in the same conditional write as the event, so of several
 * replicas exactly one raises each, once per due time. Completing a task stops its alarms; reopening it lets an
 * alarm that has not fired yet fire; changing due_at arms both again.
 */
export function taskAlarms(deps: CrmDeps): DueWork {
  return {
    async fireDue(now) {
      let fired = 0;
      for (const alarm of ['due', 'overdue'] as const) fired += await fireBatch(deps, alarm, now);
      return fired;
    },
    nextDueAt: () => deps.tasks.nextAlarmAt(),
  };
}

async function fireBatch(deps: CrmDeps, alarm: TaskAlarm, now: Date): Promise<number> {
  const due = await deps.tasks.dueAlarms(alarm, now, BATCH);
  for (const task of due) {
    const object = await viewTask(deps, task.org_id, task);
    await deps.tasks.fireAlarm(task, alarm, [newEvent(task.org_id, alarm === 'due' ? 'task.due' : 'task.overdue', { object }, now)]);
  }
  return due.length;
}
