import type { TaskServiceServer } from '@crm/proto/gen/crm/v1/tasks';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { reopenTask } from '../domain/tasks';
import { requireId } from './request';

export const reopenTaskHandler: RpcHandler<TaskServiceServer, 'reopenTask', CrmDeps> = async (deps, request) =>
  reopenTask(deps, request.org_id, requireId('task', request.id));
