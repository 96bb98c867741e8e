import type { DealServiceServer } from '@crm/proto/gen/crm/v1/deals';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { moveDeal } from '../domain/deal-actions';
import { requireId } from './request';

export const moveDealHandler: RpcHandler<DealServiceServer, 'moveDeal', CrmDeps> = async (deps, request) =>
  moveDeal(deps, request.org_id, requireId('deal', request.id), request.body ?? {});
