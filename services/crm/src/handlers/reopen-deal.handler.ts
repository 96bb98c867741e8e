import type { DealServiceServer } from '@crm/proto/gen/crm/v1/deals';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { reopenDeal } from '../domain/deal-actions';
import { requireId } from './request';

export const reopenDealHandler: RpcHandler<DealServiceServer, 'reopenDeal', CrmDeps> = async (deps, request) =>
  reopenDeal(deps, request.org_id, requireId('deal', request.id), request.body ?? {});
