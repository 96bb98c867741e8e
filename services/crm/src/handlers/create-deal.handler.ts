import type { DealServiceServer } from '@crm/proto/gen/crm/v1/deals';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { createDeal } from '../domain/deals';

export const createDealHandler: RpcHandler<DealServiceServer, 'createDeal', CrmDeps> = async (deps, request) =>
  createDeal(deps, request.org_id, request.body ?? {});
