import type { TaskServiceServer } from '@crm/proto/gen/crm/v1/tasks';
import type { AsyncService } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { completeTask, createTask, deleteTask, getTask, listTasks, reopenTask, updateTask } from '../domain/tasks';
import type { TaskSort } from '../repository/task.repository';
import { orderOf, pageOf, pageInfo, requireId } from './request';

const SORTS: readonly TaskSort[] = ['created_at', 'due_at'];

/** gRPC TaskService: maps messages to domain calls and back; the rules live in domain/tasks.ts. */
export function taskHandlers(deps: CrmDeps): AsyncService<TaskServiceServer> {
  return {
    listTasks: async (request) => {
      const { limit, after } = pageOf(request.page);
      const sort = SORTS.find((candidate) => candidate === request.sort) ?? 'created_at';
      const result = await listTasks(deps, requireId('organization', request.org_id), {
        ...request.filter,
        sort,
        order: orderOf(request.order),
        limit,
        after,
      });
      return { items: result.items, page: pageInfo(result) };
    },
    getTask: async (request) => getTask(deps, request.org_id, requireId('task', request.id)),
    createTask: async (request) => createTask(deps, request.org_id, request.body ?? {}),
    updateTask: async (request) => updateTask(deps, request.org_id, requireId('task', request.id), request.body ?? {}),
    deleteTask: async (request) => {
      await deleteTask(deps, request.org_id, requireId('task', request.id));
      return {};
    },
    completeTask: async (request) => completeTask(deps, request.org_id, requireId('task', request.id)),
    reopenTask: async (request) => reopenTask(deps, request.org_id, requireId('task', request.id)),
  };
}
