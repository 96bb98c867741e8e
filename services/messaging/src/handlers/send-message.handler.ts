import type { SendMessageRequest } from '@crm/proto/gen/messaging/v1/messaging';
import type { MessagingDeps } from '../domain/deps';
import { sendMessage } from '../domain/send';
import { requireId } from './request';

export const sendMessageHandler = (deps: MessagingDeps, request: SendMessageRequest) =>
  sendMessage(deps, requireId('organization', request.org_id), request.sender_key_id, request.body ?? {});
