import type { MessagingDeps } from '../deps';
import type { MessageRecord } from '../../repository/message.repository';
import { settleFinalStatus } from './final-status';

/**
 * A delivery status of a broadcast message moves its recipient (and so the broadcast's statistics). Idempotent on
 * its own (the recipient moves forward only), so it runs for every callback of a broadcast message, also a repeat
 * that the message itself no longer needs: a crash between the two writes is repaired by the provider's retry.
 */
export async function applyRecipientStatus(
  deps: MessagingDeps,
  message: MessageRecord,
  status: 'sent' | 'delivered' | 'read' | 'failed',
  error: MessageRecord['error'],
): Promise<void> {
  if (message.sender.type !== 'broadcast' || status === 'sent') return;
  const at = deps.now();
  const broadcastId = message.broadcast_id ?? message.sender.id;
  if (status !== 'failed' && broadcastId) {
    // Marks the stats stale also after a repeat that moved nothing: one more count, where the answer would cost a read.
    await deps.broadcasts.recipients.moveStatus(message.id, status, at);
    await deps.broadcasts.records.noteRecipientChange(broadcastId, at);
    return;
  }
  const before = await deps.broadcasts.recipients.applyStatus(message.id, status, error, at);
  if (!before) return;
  await deps.broadcasts.records.noteRecipientChange(before.broadcast_id, at);
  if (status === 'failed') await settleFinalStatus(deps, before.broadcast_id);
}
