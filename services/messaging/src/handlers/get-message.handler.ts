import type { RecordRef } from '@crm/proto/gen/messaging/v1/messaging';
import { getMessage } from '../domain/conversations';
import type { MessagingDeps } from '../domain/deps';
import { requireId } from './request';

export const getMessageHandler = (deps: MessagingDeps, request: RecordRef) =>
  getMessage(deps, requireId('organization', request.org_id), requireId('message', request.id));
