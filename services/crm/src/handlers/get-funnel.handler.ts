import type { FunnelServiceServer } from '@crm/proto/gen/crm/v1/funnels';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { getFunnel } from '../domain/funnels';
import { requireId } from './request';

export const getFunnelHandler: RpcHandler<FunnelServiceServer, 'getFunnel', CrmDeps> = async (deps, request) =>
  getFunnel(deps, request.org_id, requireId('funnel', request.id));
