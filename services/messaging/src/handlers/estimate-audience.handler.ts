import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { estimateAudience } from '../domain/broadcasts/crud';
import { requireId } from './request';

export const estimateAudienceHandler: RpcHandler<BroadcastServiceServer, 'estimateAudience', MessagingDeps> = async (deps, request) =>
  estimateAudience(deps, requireId('organization', request.org_id), request.body ?? {});
