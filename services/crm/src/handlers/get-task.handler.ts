import type { TaskServiceServer } from '@crm/proto/gen/crm/v1/tasks';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { getTask } from '../domain/tasks';
import { requireId } from './request';

export const getTaskHandler: RpcHandler<TaskServiceServer, 'getTask', CrmDeps> = async (deps, request) =>
  getTask(deps, request.org_id, requireId('task', request.id));
