import type { DealServiceServer } from '@crm/proto/gen/crm/v1/deals';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { winDeal } from '../domain/deal-actions';
import { requireId } from './request';

export const winDealHandler: RpcHandler<DealServiceServer, 'winDeal', CrmDeps> = async (deps, request) =>
  winDeal(deps, request.org_id, requireId('deal', request.id), request.body ?? {});
