import { eachEvent, EventConsumer, type EventBus, type Logger } from '@crm/shared';
import { moveMergedConversations } from '../domain/conversation-merge';
import type { MessagingDeps } from '../domain/deps';

/**
 * The messaging side of a contact merge (docs/contact-merge.md): on contact.merged, the folded contacts'
 * conversations and opt-outs move to the surviving contact. Idempotent by nature: a redelivered event finds
 * nothing left to move.
 */
export function contactMergeConsumer(
  deps: MessagingDeps,
  bus: EventBus,
  options: { groupId: string; topic: string; logger: Logger },
): EventConsumer<'contact.merged'> {
  return new EventConsumer({
    bus,
    logger: options.logger,
    groupId: options.groupId,
    topic: options.topic,
    kinds: ['contact.merged'],
    handle: eachEvent({
      'contact.merged': ({ event }) =>
        moveMergedConversations(deps, event.org_id, { id: event.data.object.id, name: event.data.object.name }, event.data.merged_ids),
    }),
  });
}
