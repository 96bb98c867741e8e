import { updateTaskBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Task } from '../../schemas/task.schemas';
import { taskIdParams } from './params';

export const updateTaskRoute = defineRoute({
  operationId: 'updateTask',
  method: 'PATCH',
  path: '/v1/tasks/{id}',
  tag: 'Tasks',
  summary: 'Update a task',
  description:
    'Any field of the create; null clears a link. status changes only through complete and reopen (UNKNOWN_FIELDS here). Emits no event.',
  scope: 'write:tasks',
  params: taskIdParams,
  body: updateTaskBody,
  success: { status: 200, kind: 'one', schema: Task },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'INVALID_REFERENCE'],
  handle: ({ params, body, principal, clients }) => clients.tasks.updateTask({ org_id: principal.orgId, id: params.id, body }),
});
