import { type DueWork, newEvent } from '@crm/shared';
import type { ConversationRecord } from '../repository/conversation.repository';
import type { MessagingDeps } from './deps';
import { viewConversation } from './views';

const BATCH = 50;

/**
 * The end of official numbers' 24-hour free-text windows (conversation.window.expired), as the shared
 * DueScheduler runs it. Each inbound message on an official number arms the conversation's alarm at its window's
 * end (conversation.repository.ts touch). When the alarm is due: if the window really closed and was not reported
 * yet, the event is raised and the alarm disarmed in one conditional write, so of several replicas exactly one
 * raises it, once per window end; if a later message moved the window, the alarm is re-armed at the new end.
 */
export function windowExpiry(deps: MessagingDeps): DueWork {
  return {
    async fireDue(now) {
      const due = await deps.conversations.dueWindowAlarms(now, BATCH);
      for (const conversation of due) await fireOne(deps, conversation, now);
      return due.length;
    },
    nextDueAt: () => deps.conversations.nextWindowAlarm(),
  };
}

async function fireOne(deps: MessagingDeps, conversation: ConversationRecord, now: Date): Promise<void> {
  const end = conversation.window_expires_at;
  if (end && end.getTime() > now.getTime()) {
    await deps.conversations.fireWindowAlarm(conversation, { window_alarm_at: end }, []);
    return;
  }
  const reported = !end || conversation.window_expired_at?.getTime() === end.getTime();
  const events = reported
    ? []
    : [newEvent(conversation.org_id, 'conversation.window.expired', { object: viewConversation(conversation) }, now)];
  await deps.conversations.fireWindowAlarm(conversation, { window_alarm_at: null, window_expired_at: end }, events);
}
