import type { AccountServiceServer } from '@crm/proto/gen/crm/v1/accounts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { listTags } from '../domain/accounts';
import { pageInfo, pageOf } from './request';

export const listTagsHandler: RpcHandler<AccountServiceServer, 'listTags', CrmDeps> = async (deps, request) => {
  const { limit, after } = pageOf(request.page);
  const result = await listTags(deps, request.org_id, limit, after);
  return { items: result.items, page: pageInfo(result) };
};
