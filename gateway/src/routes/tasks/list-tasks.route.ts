import { idOf, TASK_STATUSES, TASK_TYPES } from '@crm/shared/schemas';
import { z } from 'zod';
import { sortedFilterOf } from '../../http/list-query';
import { defineRoute } from '../../http/route';
import { isoQuery, pageQuery } from '../../schemas/registry';
import { Task } from '../../schemas/task.schemas';

const query = z.object({
  ...pageQuery,
  sort: z
    .enum(['created_at', 'due_at'])
    .default('created_at')
    .describe('due_at: tasks without a due date come last in asc order, first in desc'),
  order: z.enum(['desc', 'asc']).default('desc'),
  status: z.enum(TASK_STATUSES).optional(),
  type: z.enum(TASK_TYPES).optional(),
  assigned_to: idOf('member').optional(),
  contact_id: idOf('contact').optional(),
  deal_id: idOf('deal').optional(),
  company_id: idOf('company').optional(),
  due_after: isoQuery.optional().describe('ISO 8601 lower bound (inclusive) on due_at'),
  due_before: isoQuery.optional().describe('ISO 8601 upper bound (exclusive) on due_at'),
});

export const listTasksRoute = defineRoute({
  operationId: 'listTasks',
  method: 'GET',
  path: '/v1/tasks',
  tag: 'Tasks',
  summary: 'List tasks',
  description: "Filters, sorts and pages through the live tasks. meta.total counts the organization's tasks without filters.",
  scope: 'read:tasks',
  query,
  success: { status: 200, kind: 'list', schema: Task },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR', 'INVALID_ID'],
  handle: ({ query: q, principal, clients, page }) => clients.tasks.listTasks({ org_id: principal.orgId, page, ...sortedFilterOf(q) }),
});
