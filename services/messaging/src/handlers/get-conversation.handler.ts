import type { RecordRef } from '@crm/proto/gen/messaging/v1/messaging';
import { getConversation } from '../domain/conversations';
import type { MessagingDeps } from '../domain/deps';
import { requireId } from './request';

export const getConversationHandler = (deps: MessagingDeps, request: RecordRef) =>
  getConversation(deps, requireId('organization', request.org_id), requireId('conversation', request.id));
