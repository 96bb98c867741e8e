import { createTaskBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Task } from '../../schemas/task.schemas';

export const createTaskRoute = defineRoute({
  operationId: 'createTask',
  method: 'POST',
  path: '/v1/tasks',
  tag: 'Tasks',
  summary: 'Create a task',
  description:
    'Created open; type defaults to todo, priority to normal. contact_id, deal_id and company_id must be in the organization, assigned_to an active member. Emits task.created.',
  scope: 'write:tasks',
  body: createTaskBody,
  success: { status: 201, kind: 'one', schema: Task },
  errors: ['INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'INVALID_ID', 'INVALID_REFERENCE'],
  handle: ({ body, principal, clients }) => clients.tasks.createTask({ org_id: principal.orgId, id: '', body }),
});
