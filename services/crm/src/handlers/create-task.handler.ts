import type { TaskServiceServer } from '@crm/proto/gen/crm/v1/tasks';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { createTask } from '../domain/tasks';

export const createTaskHandler: RpcHandler<TaskServiceServer, 'createTask', CrmDeps> = async (deps, request) =>
  createTask(deps, request.org_id, request.body ?? {});
