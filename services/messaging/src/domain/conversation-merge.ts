import type { MessagingDeps } from './deps';

/**
 * contact.merged, as the messaging service applies it: the conversations (and their messages) of each folded
 * contact move to the contact it became, and an opt-out of a folded contact holds for it. Where the survivor
 * already has a conversation on the same channel and number, the two become one. Each conversation moves in its
 * own transaction, so a crash leaves every conversation either moved or not; handling the event again (a
 * redelivery) finds nothing left to move. The moved conversations' updated_at advances, so a client recovering
 * by GET /v1/conversations?updated_after= sees them.
 */
export async function moveMergedConversations(
  deps: MessagingDeps,
  orgId: string,
  survivor: { id: string; name: string },
  mergedIds: readonly string[],
): Promise<void> {
  for (const folded of mergedIds) {
    for (const conversation of await deps.conversations.ofContact(orgId, folded)) {
      await deps.transaction(async (session) => {
        const at = deps.now();
        const target = await deps.conversations.find(orgId, survivor.id, conversation.channel, conversation.instance_id);
        const to = { conversation_id: target?.id ?? conversation.id, contact_id: survivor.id };
        await deps.messages.moveConversation(orgId, conversation.id, to, session);
        if (target) await deps.conversations.absorb(target, conversation, at, session);
        else await deps.conversations.reassign(conversation, survivor, at, session);
      });
    }
    await deps.broadcasts.optOuts.carryOver(orgId, folded, survivor);
  }
}
