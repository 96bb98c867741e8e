import { isDuplicateKeyError, newEvent, type OutboxEntry, retryOnConflict, WriteConflict } from '@crm/shared';
import type { ClientSession } from 'mongoose';
import type { ConversationRecord, ConversationTouch, TouchedConversation } from '../repository/conversation.repository';
import type { MessageRecord } from '../repository/message.repository';
import type { MessagingDeps } from './deps';
import { messageEventData, viewConversation, viewMessage, type MessageView } from './views';

/**
 * Stores a message and its effect on the conversation (created, reopened, preview, unread count, window) in one
 * transaction, with the events in the message's embedded outbox: conversation.created or conversation.reopened
 * when this message opened the conversation, then the message's own kind. A provider id already stored on this
 * number aborts the whole transaction, so a callback retried at any moment changes the conversation exactly once.
 * Returns null when the message was already stored.
 */
export function storeMessage(
  deps: MessagingDeps,
  touch: ConversationTouch,
  record: MessageRecord,
  kind: 'message.received' | 'message.sent',
  alsoInTransaction?: (session: ClientSession) => Promise<void>,
): Promise<{ message: MessageView; conversation: ConversationRecord } | null> {
  let tries = 0;
  const storing = retryOnConflict(async () => {
    // "A new contact has no conversation" holds for the first try: one that met a conversation runs again without it.
    const thisTouch = tries++ === 0 ? touch : { ...touch, new_contact: false };
    try {
      return await deps.transaction(async (session) => {
        const touched = await deps.conversations.touch(thisTouch, session);
        const stored = { ...record, conversation_id: touched.conversation.id };
        const events = [
          ...openingEvents(record.org_id, touched, touch.now),
          newEvent(record.org_id, kind, messageEventData(stored), record.created_at),
        ];
        await deps.messages.insert(stored, events, session);
        await alsoInTransaction?.(session);
        return { stored, conversation: touched.conversation };
      });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      if (record.external_id && (await deps.messages.getByExternalId(record.instance_id, record.external_id))) return null;
      if (await deps.messages.getStored(record.org_id, record.id)) return null;
      // Two first messages of a new conversation raced on its unique key: the next try finds it.
      throw new WriteConflict('conversation');
    }
  });
  // Its status callbacks (due within the second) wait for this write instead of reading, or being sent back.
  deps.messages.storing(
    record,
    storing.then((result) => result?.stored ?? null),
  );
  return storing.then((result) => result && { message: viewMessage(result.stored), conversation: result.conversation });
}

/** A conversation's first message creates it (conversation.created); a message in a closed one reopens it. */
function openingEvents(orgId: string, touched: TouchedConversation, at: Date): OutboxEntry[] {
  if (!touched.opened) return [];
  const kind = touched.opened === 'created' ? 'conversation.created' : 'conversation.reopened';
  return [newEvent(orgId, kind, { object: viewConversation(touched.conversation) }, at)];
}
