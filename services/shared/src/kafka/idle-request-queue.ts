import { createRequire } from 'node:module';

interface RequestQueuePrototype {
  pending: unknown[];
  throttledUntil: number;
  scheduleCheckPendingRequests(this: RequestQueuePrototype): void;
}

/**
 * kafkajs 2.2.4 keeps every idle connection busy: `RequestQueue.scheduleCheckPendingRequests` re-arms a timer
 * with a negative delay (about 1 ms) after each check even when nothing is pending or throttled, so each
 * consumer spins at ~3 % of a core doing nothing (kafkajs issue 1556; the fix, PR 1667, was never released).
 * This applies that fix: with nothing pending and no throttle there is nothing to check, and the next queued
 * request or throttle schedules the check again itself. Applied once, by the EventBus adapter.
 */
export function quietIdleRequestQueues(): void {
  const load = createRequire(__filename);
  const RequestQueue = load('kafkajs/src/network/requestQueue') as { prototype: RequestQueuePrototype & { __quiet?: true } };
  const prototype = RequestQueue.prototype;
  if (prototype.__quiet) return;
  const schedule = prototype.scheduleCheckPendingRequests;
  if (typeof schedule !== 'function')
    throw new Error('kafkajs changed: RequestQueue.scheduleCheckPendingRequests is gone; review idle-request-queue.ts');
  prototype.scheduleCheckPendingRequests = function (this: RequestQueuePrototype) {
    if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
    schedule.call(this);
  };
  prototype.__quiet = true;
}
