import type { AccountServiceServer } from '@crm/proto/gen/crm/v1/accounts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { getMe } from '../domain/accounts';

export const getMeHandler: RpcHandler<AccountServiceServer, 'getMe', CrmDeps> = async (deps, request) =>
  getMe(deps, request.org_id, request.key_id);
