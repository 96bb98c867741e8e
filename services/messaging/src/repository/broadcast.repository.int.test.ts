import { createLogger, newId } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { REQUIRED_SETTINGS, useDatabase } from '../../../../test/support/integration';
import { broadcastRecord, recipientRecord } from '../../../../test/support/messaging-records';
import { loadMessagingConfig } from '../config';
import { optOutKey } from './opt-out.repository';
import { createDeps } from '../wiring';

describe('broadcast, recipient, lane and opt-out repositories', () => {
  let deps: ReturnType<typeof createDeps>;
  useDatabase(
    'messaging_broadcasts',
    (storage) => (deps = createDeps(storage, loadMessagingConfig(REQUIRED_SETTINGS), createLogger('test', 'silent'))),
  );

  it('applies a transition once: of two concurrent launches of a draft, one wins', async () => {
    const orgId = newId('organization');
    const draft = await deps.broadcasts.records.insert(broadcastRecord(orgId));
    const launches = await Promise.all(
      [1, 2].map(() => deps.broadcasts.records.transition(draft.id, ['draft'], { status: 'processing' }, draft.rev)),
    );
    expect(launches.filter((launched) => launched !== null)).toHaveLength(1);
    expect(await deps.broadcasts.records.getById(orgId, draft.id)).toMatchObject({ status: 'processing', rev: 2 });
    expect(await deps.broadcasts.records.transition(draft.id, ['draft'], { status: 'cancelled' })).toBeNull();
  });

  it('leases the recipient build to one replica at a time, and finishes it into sending', async () => {
    const orgId = newId('organization');
    const broadcast = await deps.broadcasts.records.insert(broadcastRecord(orgId, { status: 'processing' }));
    const now = new Date();
    const until = new Date(now.getTime() + 5_000);
    const leases = await Promise.all([1, 2, 3].map(() => deps.broadcasts.records.leaseMaterialization(broadcast.id, now, until, false)));
    expect(leases.filter(Boolean)).toHaveLength(1);
    expect(await deps.broadcasts.records.anyBuilding()).toBe(true);
    const finished = await deps.broadcasts.records.finishMaterialization(
      broadcast.id,
      { total: 2, sent: 0, delivered: 0, read: 0, failed: 0, excluded: 1 },
      now,
    );
    expect(finished).toMatchObject({ status: 'sending', materialized: true, stats: { total: 2, excluded: 1 } });
  });

  it('writes a recipient list once however often it is written, moves statuses forward and counts exact statistics', async () => {
    const orgId = newId('organization');
    const broadcastId = newId('broadcast');
    const list = Array.from({ length: 5 }, (_, seq) =>
      recipientRecord(orgId, broadcastId, seq, seq === 4 ? { status: 'excluded', instance_id: null } : {}),
    );
    await deps.broadcasts.recipients.insertMany(list);
    await deps.broadcasts.recipients.insertMany(list);
    expect(await deps.broadcasts.recipients.countPending(broadcastId)).toBe(4);
    await deps.broadcasts.recipients.markSent(list[0]!.id, new Date());
    await deps.broadcasts.recipients.markSent(list[1]!.id, new Date());
    expect(await deps.broadcasts.recipients.applyStatus(list[0]!.message_id, 'read', null, new Date())).toMatchObject({ status: 'sent' });
    expect(await deps.broadcasts.recipients.applyStatus(list[0]!.message_id, 'delivered', null, new Date())).toBeNull();
    await deps.broadcasts.recipients.applyStatus(list[1]!.message_id, 'failed', { code: '131042', message: 'payment' }, new Date());
    expect(await deps.broadcasts.recipients.countStats(broadcastId)).toEqual({
      total: 4,
      sent: 2,
      delivered: 1,
      read: 1,
      failed: 1,
      excluded: 1,
    });
    const page = await deps.broadcasts.recipients.list(broadcastId, { limit: 2, after: undefined });
    const rest = await deps.broadcasts.recipients.list(broadcastId, { limit: 10, after: JSON.parse(JSON.stringify(page.next)) });
    expect([...page.items, ...rest.items].map((recipient) => recipient.seq)).toEqual([0, 1, 2, 3, 4]);
  });

  it('gives an active lane to one of several replicas claiming it at once', async () => {
    const orgId = newId('organization');
    const broadcastId = newId('broadcast');
    const now = new Date();
    await deps.broadcasts.lanes.createFor(orgId, broadcastId, ['ci_a'], 'active', now);
    await deps.broadcasts.lanes.createFor(orgId, broadcastId, ['ci_a'], 'active', now);
    const claims = await Promise.all(
      ['r1', 'r2', 'r3'].map((owner) => deps.broadcasts.lanes.claim(owner, now, new Date(now.getTime() + 5_000))),
    );
    const held = claims.filter((lane) => lane?.broadcast_id === broadcastId);
    expect(held).toHaveLength(1);
    expect(await deps.broadcasts.lanes.unfinished(broadcastId)).toBe(1);
    expect(await deps.broadcasts.lanes.finish(held[0]!.id, held[0]!.owner!, now)).toBe(true);
    expect(await deps.broadcasts.lanes.unfinished(broadcastId)).toBe(0);
  });

  it('remembers marketing opt-outs per organization, and opts back in', async () => {
    const [orgA, orgB, contactId] = [newId('organization'), newId('organization'), newId('contact')];
    const optOut = (orgId: string) =>
      deps.broadcasts.optOuts.optOut({ id: optOutKey(orgId, contactId), org_id: orgId, contact_id: contactId, at: new Date() }, []);
    expect(await optOut(orgA)).toBe(true);
    expect(await optOut(orgA)).toBe(false);
    expect(await deps.broadcasts.optOuts.optedOut(orgA, [contactId])).toEqual(new Set([contactId]));
    expect(await deps.broadcasts.optOuts.optedOut(orgB, [contactId])).toEqual(new Set());
    await deps.broadcasts.optOuts.optIn(orgA, contactId);
    expect(await deps.broadcasts.optOuts.optedOut(orgA, [contactId])).toEqual(new Set());
  });
});
