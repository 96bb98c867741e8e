import { defineRoute } from '../../http/route';
import { taskIdParams } from './params';

export const deleteTaskRoute = defineRoute({
  operationId: 'deleteTask',
  method: 'DELETE',
  path: '/v1/tasks/{id}',
  tag: 'Tasks',
  summary: 'Delete a task',
  description: 'Emits no event.',
  scope: 'write:tasks',
  params: taskIdParams,
  success: { status: 204, kind: 'none' },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.tasks.deleteTask({ org_id: principal.orgId, id: params.id }),
});
