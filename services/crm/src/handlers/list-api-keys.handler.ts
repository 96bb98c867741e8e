import type { AccountServiceServer } from '@crm/proto/gen/crm/v1/accounts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { listApiKeys } from '../domain/api-keys';
import { pageInfo, pageOf } from './request';

export const listApiKeysHandler: RpcHandler<AccountServiceServer, 'listApiKeys', CrmDeps> = async (deps, request) => {
  const { limit, after } = pageOf(request.page);
  const result = await listApiKeys(deps, request.org_id, limit, after);
  return { items: result.items, page: pageInfo(result) };
};
