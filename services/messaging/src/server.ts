import { BroadcastServiceService } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import { MessagingServiceService, type MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import { bindService, type AsyncService, type GrpcServiceBinding, type Logger } from '@crm/shared';
import type { MessagingDeps } from './domain/deps';
import { broadcastHandlers } from './handlers/broadcast.handlers';
import { assignConversationHandler } from './handlers/assign-conversation.handler';
import { closeConversationHandler } from './handlers/close-conversation.handler';
import { getChatInstanceHandler } from './handlers/get-chat-instance.handler';
import { getConversationHandler } from './handlers/get-conversation.handler';
import { getMessageHandler } from './handlers/get-message.handler';
import { listChatInstancesHandler } from './handlers/list-chat-instances.handler';
import { listConversationsHandler } from './handlers/list-conversations.handler';
import { listMessagesHandler } from './handlers/list-messages.handler';
import { listTemplatesHandler } from './handlers/list-templates.handler';
import { sendMessageHandler } from './handlers/send-message.handler';

/** Binds messaging.v1.MessagingService (one RPC per file) and broadcasts.v1.BroadcastService to their handlers. */
export function messagingGrpcServices(deps: MessagingDeps, logger: Logger): GrpcServiceBinding[] {
  const handlers: AsyncService<MessagingServiceServer> = {
    listConversations: (request) => listConversationsHandler(deps, request),
    getConversation: (request) => getConversationHandler(deps, request),
    listMessages: (request) => listMessagesHandler(deps, request),
    assignConversation: (request) => assignConversationHandler(deps, request),
    closeConversation: (request) => closeConversationHandler(deps, request),
    sendMessage: (request) => sendMessageHandler(deps, request),
    getMessage: (request) => getMessageHandler(deps, request),
    listChatInstances: (request) => listChatInstancesHandler(deps, request),
    getChatInstance: (request) => getChatInstanceHandler(deps, request),
    listTemplates: (request) => listTemplatesHandler(deps, request),
  };
  return [
    { definition: MessagingServiceService, implementation: bindService(handlers, logger) },
    { definition: BroadcastServiceService, implementation: bindService(broadcastHandlers(deps), logger) },
  ];
}
