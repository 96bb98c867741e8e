import type { AccountServiceServer } from '@crm/proto/gen/crm/v1/accounts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { authenticate } from '../domain/accounts';

export const authenticateHandler: RpcHandler<AccountServiceServer, 'authenticate', CrmDeps> = async (deps, request) =>
  authenticate(deps, request.key_hash);
