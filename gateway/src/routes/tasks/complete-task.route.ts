import { defineRoute } from '../../http/route';
import { Task } from '../../schemas/task.schemas';
import { taskIdParams } from './params';

export const completeTaskRoute = defineRoute({
  operationId: 'completeTask',
  method: 'POST',
  path: '/v1/tasks/{id}/complete',
  tag: 'Tasks',
  summary: 'Complete a task',
  description: 'open → completed; sets completed_at. INVALID_STATUS when already completed. Emits task.completed.',
  scope: 'write:tasks',
  params: taskIdParams,
  success: { status: 200, kind: 'one', schema: Task },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_STATUS'],
  handle: ({ params, principal, clients }) => clients.tasks.completeTask({ org_id: principal.orgId, id: params.id }),
});
