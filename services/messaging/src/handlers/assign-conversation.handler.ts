import type { WriteRequest } from '@crm/proto/gen/messaging/v1/messaging';
import { assignConversation } from '../domain/conversations';
import type { MessagingDeps } from '../domain/deps';
import { requireId } from './request';

export const assignConversationHandler = (deps: MessagingDeps, request: WriteRequest) =>
  assignConversation(deps, requireId('organization', request.org_id), requireId('conversation', request.id), request.body ?? {});
