import type { AudienceServiceServer } from '@crm/proto/gen/crm/v1/audiences';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { streamAudience } from '../domain/audiences';

export const streamAudienceHandler: RpcHandler<AudienceServiceServer, 'streamAudience', CrmDeps> = async function* (deps, request) {
  for await (const contacts of streamAudience(deps, request)) yield { contacts };
};
