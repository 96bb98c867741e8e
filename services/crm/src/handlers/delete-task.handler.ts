import type { TaskServiceServer } from '@crm/proto/gen/crm/v1/tasks';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { deleteTask } from '../domain/tasks';
import { requireId } from './request';

export const deleteTaskHandler: RpcHandler<TaskServiceServer, 'deleteTask', CrmDeps> = async (deps, request) => {
  await deleteTask(deps, request.org_id, requireId('task', request.id));
  return {};
};
