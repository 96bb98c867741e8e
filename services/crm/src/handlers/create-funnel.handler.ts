import type { FunnelServiceServer } from '@crm/proto/gen/crm/v1/funnels';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { createFunnel } from '../domain/funnels';

export const createFunnelHandler: RpcHandler<FunnelServiceServer, 'createFunnel', CrmDeps> = async (deps, request) =>
  createFunnel(deps, request.org_id, request.body ?? {});
