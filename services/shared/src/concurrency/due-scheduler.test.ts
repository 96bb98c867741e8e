import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { currentDeadline, withDeadline } from '../grpc/deadline';
import { currentRequestId, withRequestId } from '../grpc/request-id';
import { DueScheduler } from './due-scheduler';

describe('a due scheduler woken by a request', () => {
  it("runs its pass outside that request: no deadline of it, and events not raised as that request's", async () => {
    const seen: Array<{ requestId: string | undefined; deadline: number | undefined }> = [];
    let fired = false;
    const scheduler = new DueScheduler({
      name: 'test',
      idleCheckMs: 60_000,
      logger: pino({ level: 'silent' }),
      work: {
        async fireDue() {
          seen.push({ requestId: currentRequestId(), deadline: currentDeadline() });
          if (fired) return 0;
          fired = true;
          return 1;
        },
        nextDueAt: async () => null,
      },
    });
    await withRequestId('req_waking', () => withDeadline(Date.now() + 60_000, async () => scheduler.wake()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await scheduler.stop();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual(seen.map(() => ({ requestId: undefined, deadline: undefined })));
  });
});
