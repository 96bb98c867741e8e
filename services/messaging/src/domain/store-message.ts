import { isDuplicateKeyError, type OutboxEntry, retryOnConflict, WriteConflict } from '@crm/shared';
import type { ClientSession } from 'mongoose';
import type { ConversationRecord, ConversationTouch } from '../repository/conversation.repository';
import type { MessageRecord } from '../repository/message.repository';
import type { MessagingDeps } from './deps';
import { viewMessage, type MessageView } from './views';

/**
 * Stores a message and its effect on the conversation (created, reopened, preview, unread count, window) in one
 * transaction, with the message's events in its embedded outbox. A provider id already stored on this number
 * aborts the whole transaction, so a callback retried at any moment changes the conversation exactly once.
 * Returns null when the message was already stored.
 */
export function storeMessage(
  deps: MessagingDeps,
  touch: ConversationTouch,
  record: MessageRecord,
  events: (view: MessageView) => OutboxEntry[],
  alsoInTransaction?: (session: ClientSession) => Promise<void>,
): Promise<{ message: MessageView; conversation: ConversationRecord } | null> {
  return retryOnConflict(async () => {
    try {
      return await deps.transaction(async (session) => {
        const conversation = await deps.conversations.touch(touch, session);
        const message = viewMessage({ ...record, conversation_id: conversation.id });
        await deps.messages.insert({ ...record, conversation_id: conversation.id }, events(message), session);
        await alsoInTransaction?.(session);
        return { message, conversation };
      });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      if (record.external_id && (await deps.messages.getByExternalId(record.instance_id, record.external_id))) return null;
      if (await deps.messages.getById(record.org_id, record.id)) return null;
      // Two first messages of a new conversation raced on its unique key: the next try finds it.
      throw new WriteConflict('conversation');
    }
  });
}
