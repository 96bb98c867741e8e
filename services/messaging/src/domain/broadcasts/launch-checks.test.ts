import { describe, expect, it } from 'vitest';
import type { MessagingDeps } from '../deps';
import type { BroadcastRecord } from '../../repository/broadcast.repository';
import { checkLaunch } from './launch-checks';

const LIMIT = 10;
const warm = { id: 'ci_warm', name: 'Warm', channel: 'qrcode' as const };
const paused = { id: 'bc_1', org_id: 'org_1', instances: [warm] } as BroadcastRecord;

/**
 * A paused lane with `pending` recipients left and `sent` messages in 24 h; `landing` sends of the lane commit (one
 * transaction each: a message stored, a recipient no longer pending) between the pending and the sent count.
 */
function lane(pending: number, sent: number, landing: number): MessagingDeps {
  const store = { pending, sent, landing };
  return {
    now: () => new Date(),
    instances: { getMany: async () => [{ id: warm.id, status: 'connected', warmup: { active: true, daily_limit: LIMIT } }] },
    broadcasts: { recipients: { countPending: async () => store.pending } },
    messages: {
      countOutboundSince: async () => {
        if (store.landing > 0) {
          store.landing--;
          store.pending--;
          store.sent++;
        }
        return store.sent;
      },
    },
  } as unknown as MessagingDeps;
}

const resume = (deps: MessagingDeps) => checkLaunch(deps, paused, { override: false, resuming: true });

describe('the warm-up check on resume', () => {
  it('counts what is left plus what was sent, and refuses past the daily limit', async () => {
    await expect(resume(lane(6, 4, 0))).resolves.toBeUndefined();
    await expect(resume(lane(6, 5, 0))).rejects.toMatchObject({
      code: 'WARMUP_LIMIT_EXCEEDED',
      details: { instances: [{ id: warm.id, daily_limit: LIMIT, volume: 11 }] },
    });
  });

  it('counts a send that lands between its reads once, not as both left and sent', async () => {
    await expect(resume(lane(6, 4, 1))).resolves.toBeUndefined();
    await expect(resume(lane(6, 5, 2))).rejects.toMatchObject({ details: { instances: [{ volume: 11 }] } });
  });
});
