import type { FunnelServiceServer } from '@crm/proto/gen/crm/v1/funnels';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { updateStage } from '../domain/stages';
import { requireId } from './request';

export const updateStageHandler: RpcHandler<FunnelServiceServer, 'updateStage', CrmDeps> = async (deps, request) =>
  updateStage(deps, request.org_id, requireId('funnel', request.funnel_id), requireId('stage', request.id), request.body ?? {});
