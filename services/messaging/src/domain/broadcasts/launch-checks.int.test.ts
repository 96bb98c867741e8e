import { createLogger, newId } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { REQUIRED_SETTINGS, useDatabase } from '../../../../../test/support/integration';
import { broadcastRecord, instanceRecord, messageRecord, recipientRecord } from '../../../../../test/support/messaging-records';
import { loadMessagingConfig } from '../../config';
import type { RecipientRecord } from '../../repository/recipient.repository';
import { createDeps } from '../../wiring';
import type { MessagingDeps } from '../deps';
import { checkLaunch } from './launch-checks';

const LIMIT = 10;

describe('the warm-up check on resume', () => {
  let deps: MessagingDeps;
  useDatabase(
    'messaging_launch_checks',
    (storage) => (deps = createDeps(storage, loadMessagingConfig(REQUIRED_SETTINGS), createLogger('test', 'silent'))),
  );

  /** A paused broadcast on a number in warm-up: `left` recipients pending, `sent` messages from the number today. */
  async function pausedOn(left: number, sent: number) {
    const orgId = newId('organization');
    const number = instanceRecord(orgId, { warmup: { active: true, daily_limit: LIMIT } });
    await deps.instances.insert(number);
    const broadcast = broadcastRecord(orgId, { status: 'paused', instances: [{ id: number.id, name: number.name, channel: 'qrcode' }] });
    await deps.broadcasts.records.insert(broadcast);
    const recipients = Array.from({ length: left }, (_, seq) => recipientRecord(orgId, broadcast.id, seq, { instance_id: number.id }));
    await deps.broadcasts.recipients.insertMany(recipients);
    for (let i = 0; i < sent; i++) await deps.messages.insert(outbound(orgId, number.id), []);
    return { orgId, number, broadcast, recipients };
  }

  const outbound = (orgId: string, instanceId: string, id?: string) =>
    messageRecord(orgId, newId('conversation'), { instance_id: instanceId, status: 'sent', ...(id && { id }) });

  /** A send of the lane as the lane stores it: its message, and its recipient no longer pending, in one transaction. */
  const land = (orgId: string, instanceId: string, recipient: RecipientRecord) =>
    deps.transaction(async (session) => {
      await deps.messages.insert(outbound(orgId, instanceId, recipient.message_id ?? undefined), [], session);
      await deps.broadcasts.recipients.markSent(recipient.id, new Date(), session);
    });

  it('counts what is left plus what the number sent, and refuses past its daily limit', async () => {
    const within = await pausedOn(6, 4);
    await expect(checkLaunch(deps, within.broadcast, { override: false, resuming: true })).resolves.toBeUndefined();
    const over = await pausedOn(6, 5);
    await expect(checkLaunch(deps, over.broadcast, { override: false, resuming: true })).rejects.toMatchObject({
      code: 'WARMUP_LIMIT_EXCEEDED',
      details: { instances: [{ id: over.number.id, daily_limit: LIMIT, volume: 11 }] },
    });
    await expect(checkLaunch(deps, over.broadcast, { override: true, resuming: true })).resolves.toBeUndefined();
  });

  it('counts a send that lands between its two counts once, not as both left and sent', async () => {
    const paused = await pausedOn(6, 4);
    let landed = false;
    // The send lands after the pending count was read and before the sent count is.
    const racing: MessagingDeps = {
      ...deps,
      messages: {
        ...deps.messages,
        countOutboundSince: async (...args) => {
          if (!landed) {
            landed = true;
            await land(paused.orgId, paused.number.id, paused.recipients[0]!);
          }
          return deps.messages.countOutboundSince(...args);
        },
      },
    };
    await expect(checkLaunch(racing, paused.broadcast, { override: false, resuming: true })).resolves.toBeUndefined();
    expect(landed).toBe(true);
    // Once it landed, it counts as sent and no longer as left: still 10.
    expect(await deps.broadcasts.recipients.countPending(paused.broadcast.id)).toBe(5);
    await expect(checkLaunch(deps, paused.broadcast, { override: false, resuming: true })).resolves.toBeUndefined();
  });
});
