import { newEvent, type OutboxEntry } from '@crm/shared';
import type { BroadcastRecord } from '../../repository/broadcast.repository';
import { viewBroadcast } from './views';

/** broadcast.started: launched now, or at its scheduled time (draft or scheduled → processing; once per broadcast). */
export const startedEvents = (record: BroadcastRecord, at: Date): OutboxEntry[] => [
  newEvent(record.org_id, 'broadcast.started', { object: viewBroadcast(record) }, at),
];

/**
 * The event of a finished status: broadcast.failed when every send failed (or the scheduled launch failed its
 * checks), broadcast.completed for completed and completed_with_errors. A finished broadcast whose status later
 * follows late delivery failures raises the event of its new status.
 */
export const finishedEvents = (record: BroadcastRecord, at: Date): OutboxEntry[] => [
  newEvent(record.org_id, record.status === 'failed' ? 'broadcast.failed' : 'broadcast.completed', { object: viewBroadcast(record) }, at),
];
