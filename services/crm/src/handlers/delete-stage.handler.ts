import type { FunnelServiceServer } from '@crm/proto/gen/crm/v1/funnels';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { deleteStage } from '../domain/stages';
import { requireId } from './request';

export const deleteStageHandler: RpcHandler<FunnelServiceServer, 'deleteStage', CrmDeps> = async (deps, request) => {
  await deleteStage(deps, request.org_id, requireId('funnel', request.funnel_id), requireId('stage', request.id));
  return {};
};
