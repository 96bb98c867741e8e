import type { TaskServiceServer } from '@crm/proto/gen/crm/v1/tasks';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { updateTask } from '../domain/tasks';
import { requireId } from './request';

export const updateTaskHandler: RpcHandler<TaskServiceServer, 'updateTask', CrmDeps> = async (deps, request) =>
  updateTask(deps, request.org_id, requireId('task', request.id), request.body ?? {});
