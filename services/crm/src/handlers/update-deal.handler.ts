import type { DealServiceServer } from '@crm/proto/gen/crm/v1/deals';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { updateDeal } from '../domain/deals';
import { requireId } from './request';

export const updateDealHandler: RpcHandler<DealServiceServer, 'updateDeal', CrmDeps> = async (deps, request) =>
  updateDeal(deps, request.org_id, requireId('deal', request.id), request.body ?? {});
