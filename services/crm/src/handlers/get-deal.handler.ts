import type { DealServiceServer } from '@crm/proto/gen/crm/v1/deals';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { getDeal } from '../domain/deals';
import { requireId } from './request';

export const getDealHandler: RpcHandler<DealServiceServer, 'getDeal', CrmDeps> = async (deps, request) =>
  getDeal(deps, request.org_id, requireId('deal', request.id));
