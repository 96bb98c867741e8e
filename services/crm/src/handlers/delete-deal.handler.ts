import type { DealServiceServer } from '@crm/proto/gen/crm/v1/deals';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { deleteDeal } from '../domain/deals';
import { requireId } from './request';

export const deleteDealHandler: RpcHandler<DealServiceServer, 'deleteDeal', CrmDeps> = async (deps, request) => {
  await deleteDeal(deps, request.org_id, requireId('deal', request.id));
  return {};
};
