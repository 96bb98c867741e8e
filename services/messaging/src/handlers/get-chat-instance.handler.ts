import type { RecordRef } from '@crm/proto/gen/messaging/v1/messaging';
import type { MessagingDeps } from '../domain/deps';
import { getChatInstance } from '../domain/instances';
import { requireId } from './request';

export const getChatInstanceHandler = (deps: MessagingDeps, request: RecordRef) =>
  getChatInstance(deps, requireId('organization', request.org_id), requireId('chatInstance', request.id));
