import type { DealServiceServer } from '@crm/proto/gen/crm/v1/deals';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { transferDeal } from '../domain/deal-actions';
import { requireId } from './request';

export const transferDealHandler: RpcHandler<DealServiceServer, 'transferDeal', CrmDeps> = async (deps, request) =>
  transferDeal(deps, request.org_id, requireId('deal', request.id), request.body ?? {});
