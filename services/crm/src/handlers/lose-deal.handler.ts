import type { DealServiceServer } from '@crm/proto/gen/crm/v1/deals';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { loseDeal } from '../domain/deal-actions';
import { requireId } from './request';

export const loseDealHandler: RpcHandler<DealServiceServer, 'loseDeal', CrmDeps> = async (deps, request) =>
  loseDeal(deps, request.org_id, requireId('deal', request.id), request.body ?? {});
