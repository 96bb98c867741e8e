import type { AccountServiceServer } from '@crm/proto/gen/crm/v1/accounts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { revokeApiKey } from '../domain/api-keys';

export const revokeApiKeyHandler: RpcHandler<AccountServiceServer, 'revokeApiKey', CrmDeps> = async (deps, request) => {
  await revokeApiKey(deps, request.org_id, request.key_id, request.caller_scopes);
  return {};
};
