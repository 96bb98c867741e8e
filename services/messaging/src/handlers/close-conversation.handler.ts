import type { RecordRef } from '@crm/proto/gen/messaging/v1/messaging';
import { closeConversation } from '../domain/conversations';
import type { MessagingDeps } from '../domain/deps';
import { requireId } from './request';

export const closeConversationHandler = (deps: MessagingDeps, request: RecordRef) =>
  closeConversation(deps, requireId('organization', request.org_id), requireId('conversation', request.id));
