import { defineRoute } from '../../http/route';
import { Task } from '../../schemas/task.schemas';
import { taskIdParams } from './params';

export const getTaskRoute = defineRoute({
  operationId: 'getTask',
  method: 'GET',
  path: '/v1/tasks/{id}',
  tag: 'Tasks',
  summary: 'Read a task',
  scope: 'read:tasks',
  params: taskIdParams,
  success: { status: 200, kind: 'one', schema: Task },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.tasks.getTask({ org_id: principal.orgId, id: params.id }),
});
