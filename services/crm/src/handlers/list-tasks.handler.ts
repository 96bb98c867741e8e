import type { TaskServiceServer } from '@crm/proto/gen/crm/v1/tasks';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { listTasks, TASK_SORTS } from '../domain/tasks';
import { pageInfo, requireId, sortedPageOf } from './request';

export const listTasksHandler: RpcHandler<TaskServiceServer, 'listTasks', CrmDeps> = async (deps, request) => {
  const result = await listTasks(deps, requireId('organization', request.org_id), {
    ...request.filter,
    ...sortedPageOf(request, TASK_SORTS),
  });
  return { items: result.items, page: pageInfo(result) };
};
