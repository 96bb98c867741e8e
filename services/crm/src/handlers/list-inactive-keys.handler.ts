import type { AccountServiceServer } from '@crm/proto/gen/crm/v1/accounts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { listInactiveKeys } from '../domain/accounts';

export const listInactiveKeysHandler: RpcHandler<AccountServiceServer, 'listInactiveKeys', CrmDeps> = async (deps, request) => ({
  key_ids: await listInactiveKeys(deps, request.key_ids),
});
