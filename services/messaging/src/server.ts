import { BroadcastServiceService, type BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import { MessagingServiceService, type MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import { bindHandlers, type GrpcServiceBinding, type Logger } from '@crm/shared';
import type { MessagingDeps } from './domain/deps';
import { assignConversationHandler } from './handlers/assign-conversation.handler';
import { cancelBroadcastHandler } from './handlers/cancel-broadcast.handler';
import { closeConversationHandler } from './handlers/close-conversation.handler';
import { createBroadcastHandler } from './handlers/create-broadcast.handler';
import { deleteBroadcastHandler } from './handlers/delete-broadcast.handler';
import { estimateAudienceHandler } from './handlers/estimate-audience.handler';
import { getBroadcastHandler } from './handlers/get-broadcast.handler';
import { getChatInstanceHandler } from './handlers/get-chat-instance.handler';
import { getConversationHandler } from './handlers/get-conversation.handler';
import { getConversationHistoryHandler } from './handlers/get-conversation-history.handler';
import { getMessageHandler } from './handlers/get-message.handler';
import { launchBroadcastHandler } from './handlers/launch-broadcast.handler';
import { listBroadcastsHandler } from './handlers/list-broadcasts.handler';
import { listChatInstancesHandler } from './handlers/list-chat-instances.handler';
import { listConversationsHandler } from './handlers/list-conversations.handler';
import { listMessagesHandler } from './handlers/list-messages.handler';
import { listRecipientsHandler } from './handlers/list-recipients.handler';
import { listTemplatesHandler } from './handlers/list-templates.handler';
import { optOutContactHandler } from './handlers/opt-out-contact.handler';
import { pauseBroadcastHandler } from './handlers/pause-broadcast.handler';
import { resumeBroadcastHandler } from './handlers/resume-broadcast.handler';
import { scheduleBroadcastHandler } from './handlers/schedule-broadcast.handler';
import { sendMessageHandler } from './handlers/send-message.handler';
import { updateBroadcastHandler } from './handlers/update-broadcast.handler';

/** messaging.v1.MessagingService and broadcasts.v1.BroadcastService with their handlers, one RPC per file in handlers/. */
export function messagingGrpcServices(deps: MessagingDeps, logger: Logger): GrpcServiceBinding[] {
  const messaging = bindHandlers<MessagingServiceServer, MessagingDeps>(
    deps,
    {
      listConversations: listConversationsHandler,
      getConversation: getConversationHandler,
      listMessages: listMessagesHandler,
      getConversationHistory: getConversationHistoryHandler,
      assignConversation: assignConversationHandler,
      closeConversation: closeConversationHandler,
      sendMessage: sendMessageHandler,
      getMessage: getMessageHandler,
      listChatInstances: listChatInstancesHandler,
      getChatInstance: getChatInstanceHandler,
      listTemplates: listTemplatesHandler,
      optOutContact: optOutContactHandler,
    },
    logger,
  );
  const broadcasts = bindHandlers<BroadcastServiceServer, MessagingDeps>(
    deps,
    {
      listBroadcasts: listBroadcastsHandler,
      createBroadcast: createBroadcastHandler,
      estimateAudience: estimateAudienceHandler,
      getBroadcast: getBroadcastHandler,
      updateBroadcast: updateBroadcastHandler,
      deleteBroadcast: deleteBroadcastHandler,
      launchBroadcast: launchBroadcastHandler,
      scheduleBroadcast: scheduleBroadcastHandler,
      pauseBroadcast: pauseBroadcastHandler,
      resumeBroadcast: resumeBroadcastHandler,
      cancelBroadcast: cancelBroadcastHandler,
      listRecipients: listRecipientsHandler,
    },
    logger,
  );
  return [
    { definition: MessagingServiceService, implementation: messaging },
    { definition: BroadcastServiceService, implementation: broadcasts },
  ];
}
