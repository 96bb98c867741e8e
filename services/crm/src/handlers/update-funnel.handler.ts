import type { FunnelServiceServer } from '@crm/proto/gen/crm/v1/funnels';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { updateFunnel } from '../domain/funnels';
import { requireId } from './request';

export const updateFunnelHandler: RpcHandler<FunnelServiceServer, 'updateFunnel', CrmDeps> = async (deps, request) =>
  updateFunnel(deps, request.org_id, requireId('funnel', request.id), request.body ?? {});
