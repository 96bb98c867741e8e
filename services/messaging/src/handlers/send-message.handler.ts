import type { MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { sendMessage } from '../domain/send';
import { requireId } from './request';

/** `sender`, `message_id`, `agent_run_id` and `first_send` come from internal callers only (the agents service); the gateway never sets them. */
export const sendMessageHandler: RpcHandler<MessagingServiceServer, 'sendMessage', MessagingDeps> = async (deps, request) =>
  sendMessage(deps, requireId('organization', request.org_id), request.sender_key_id, request.body ?? {}, {
    sender: request.sender ? { type: request.sender.type, id: request.sender.id ?? null, name: request.sender.name ?? null } : undefined,
    messageId: request.message_id ? requireId('message', request.message_id) : undefined,
    agentRunId: request.agent_run_id ? requireId('agentRun', request.agent_run_id) : undefined,
    firstSend: request.first_send,
  });
