import type { FunnelServiceServer } from '@crm/proto/gen/crm/v1/funnels';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { createStage } from '../domain/stages';
import { requireId } from './request';

export const createStageHandler: RpcHandler<FunnelServiceServer, 'createStage', CrmDeps> = async (deps, request) =>
  createStage(deps, request.org_id, requireId('funnel', request.funnel_id), request.body ?? {});
