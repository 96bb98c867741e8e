import type { TaskServiceServer } from '@crm/proto/gen/crm/v1/tasks';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { completeTask } from '../domain/tasks';
import { requireId } from './request';

export const completeTaskHandler: RpcHandler<TaskServiceServer, 'completeTask', CrmDeps> = async (deps, request) =>
  completeTask(deps, request.org_id, requireId('task', request.id));
