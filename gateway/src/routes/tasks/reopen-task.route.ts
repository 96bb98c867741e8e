import { defineRoute } from '../../http/route';
import { Task } from '../../schemas/task.schemas';
import { taskIdParams } from './params';

export const reopenTaskRoute = defineRoute({
  operationId: 'reopenTask',
  method: 'POST',
  path: '/v1/tasks/{id}/reopen',
  tag: 'Tasks',
  summary: 'Reopen a task',
  description: 'completed → open; clears completed_at. INVALID_STATUS when already open. Emits no event.',
  scope: 'write:tasks',
  params: taskIdParams,
  success: { status: 200, kind: 'one', schema: Task },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_STATUS'],
  handle: ({ params, principal, clients }) => clients.tasks.reopenTask({ org_id: principal.orgId, id: params.id }),
});
