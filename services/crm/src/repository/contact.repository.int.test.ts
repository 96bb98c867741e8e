import { createLogger, newId, WriteConflict } from '@crm/shared';
import { describe, expect, it, vi } from 'vitest';
import { contactRecord } from '../../../../test/support/crm-records';
import { testEvent, useDatabase } from '../../../../test/support/integration';
import type { CrmDeps } from '../domain/deps';
import { createDeps } from '../wiring';

describe('contact repository', () => {
  let deps: CrmDeps;
  useDatabase('crm_contacts', (storage) => void (deps = createDeps(storage, createLogger('test', 'silent'))));

  it("finds an organization's live contacts only: another organization's and deleted ones are not found", async () => {
    const mine = await deps.contacts.insert(contactRecord('org_a'), []);
    const theirs = await deps.contacts.insert(contactRecord('org_b'), []);
    expect(await deps.contacts.getById('org_a', mine.id)).toMatchObject({ id: mine.id, rev: 1 });
    expect(await deps.contacts.getById('org_a', theirs.id)).toBeNull();
    expect((await deps.contacts.getMany('org_a', [mine.id, theirs.id])).map((found) => found.id)).toEqual([mine.id]);
    await deps.contacts.updateAtRevision('org_a', mine.id, 1, { deleted_at: new Date() }, []);
    expect(await deps.contacts.getById('org_a', mine.id)).toBeNull();
  });

  it('sorts by name case-insensitively and filters by search, tag and channel presence', async () => {
    const orgId = newId('organization');
    for (const [name, tags, jid] of [
      ['bob', ['vip'], 'b@c.chatapp'],
      ['Alice', [], null],
      ['carol', ['vip'], null],
    ] as const)
      await deps.contacts.insert(contactRecord(orgId, { name, tags: [...tags], chatapp_jid: jid }), []);
    const names = async (query: Partial<Parameters<CrmDeps['contacts']['list']>[1]>) =>
      (await deps.contacts.list(orgId, { sort: 'name', order: 'asc', limit: 10, after: undefined, ...query })).items.map((c) => c.name);
    expect(await names({})).toEqual(['Alice', 'bob', 'carol']);
    expect(await names({ tag: 'vip' })).toEqual(['bob', 'carol']);
    expect(await names({ search: 'CAR' })).toEqual(['carol']);
    // Word starts only (README "Search"): an infix matches nothing.
    expect(await names({ search: 'AR' })).toEqual([]);
    expect(await names({ has_chatapp: true })).toEqual(['bob']);
    expect(await names({ search: '.*' })).toEqual([]);
  });

  it('counts a message event once however often it is delivered, and keeps the latest message time', async () => {
    const record = await deps.contacts.insert(contactRecord('org_a'), []);
    const event = newId('event');
    const at = new Date('2026-03-01T10:00:00Z');
    await Promise.all([1, 2, 3].map(() => deps.contacts.countMessage('org_a', record.id, event, at)));
    expect(await deps.contacts.getById('org_a', record.id)).toMatchObject({ messages_count: 1, last_message_at: at });
    await deps.contacts.countMessage('org_a', record.id, newId('event'), new Date('2026-02-01T10:00:00Z'));
    expect(await deps.contacts.getById('org_a', record.id)).toMatchObject({ messages_count: 2, last_message_at: at });
  });

  it('gives a channel identity to a contact that lacks it, never over one it has', async () => {
    const record = await deps.contacts.insert(contactRecord('org_a'), []);
    expect(await deps.contacts.setChannelIdentity('org_a', record.id, 'chatapp_jid', '1@c.chatapp')).toMatchObject({
      chatapp_jid: '1@c.chatapp',
    });
    expect(await deps.contacts.setChannelIdentity('org_a', record.id, 'chatapp_jid', '2@c.chatapp')).toBeNull();
    expect(await deps.contacts.findBy('org_a', 'chatapp_jid', '1@c.chatapp')).toMatchObject({ id: record.id });
  });

  it('writes a change with its events at the revision read, and refuses a stale revision', async () => {
    const record = await deps.contacts.insert(contactRecord('org_a'), []);
    const event = testEvent('org_a');
    const updated = await deps.contacts.updateAtRevision('org_a', record.id, 1, { name: 'Grace' }, [event]);
    expect(updated).toMatchObject({ name: 'Grace', rev: 2 });
    const raw = await deps.contacts.collection.findOne({ _id: record.id as never });
    expect(raw).toMatchObject({ name_key: 'grace', _outbox_pending: true });
    expect(raw?._outbox).toEqual([expect.objectContaining({ id: event.id })]);
    await expect(deps.contacts.updateAtRevision('org_a', record.id, 1, { name: 'Stale' }, [])).rejects.toBeInstanceOf(WriteConflict);
  });

  it('walks a broadcast audience oldest first, by tags, without the excluded ones', async () => {
    const orgId = newId('organization');
    const base = Date.UTC(2026, 0, 1);
    for (let n = 0; n < 7; n++)
      await deps.contacts.insert(
        contactRecord(orgId, { name: `c${n}`, tags: n % 2 ? ['a'] : ['a', 'stop'], created_at: new Date(base + n) }),
        [],
      );
    const seen: string[] = [];
    let after;
    do {
      const page = await deps.contacts.audiencePage(
        orgId,
        { match: { type: 'tags', tags: ['a'], operator: 'or' }, exclude_tags: ['stop'] },
        { limit: 2, after },
      );
      seen.push(...page.items.map((c) => c.name));
      after = page.next;
    } while (after);
    expect(seen).toEqual(['c1', 'c3', 'c5']);
  });
});

describe('identity claims', () => {
  let deps: CrmDeps;
  useDatabase('crm_identities', (storage) => void (deps = createDeps(storage, createLogger('test', 'silent'))));

  it('gives an e-mail to exactly one of 8 concurrent claimants; the others learn who holds it', async () => {
    const claimants = Array.from({ length: 8 }, () => newId('contact'));
    const holders = await Promise.all(
      claimants.map((id) => deps.identities.claim('org_a', 'email', 'Ada@Example.com', id, async () => true)),
    );
    const winners = claimants.filter((_, n) => holders[n] === null);
    expect(winners).toHaveLength(1);
    expect(new Set(holders.filter((holder) => holder !== null))).toEqual(new Set(winners));
  });

  it('hands a claim over when its holder is no longer live, and frees it on release', async () => {
    const { identities } = deps;
    const [first, second, third] = [newId('contact'), newId('contact'), newId('contact')];
    expect(await identities.claim('org_a', 'phone', '+15550001', first, async () => true)).toBeNull();
    expect(await identities.claim('org_a', 'phone', '+15550001', second, async () => true)).toBe(first);
    // A claim without its record is taken over once older than a create takes (10 s): a crash left it.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 11_000 });
    try {
      expect(await identities.claim('org_a', 'phone', '+15550001', second, async () => false)).toBeNull();
    } finally {
      vi.useRealTimers();
    }
    await identities.release('org_a', 'phone', '+15550001', second);
    expect(await identities.claim('org_a', 'phone', '+15550001', third, async () => true)).toBeNull();
  });

  it('waits for a young claim whose record is not stored yet instead of taking it over', async () => {
    const [creating, racing, later] = [newId('contact'), newId('contact'), newId('contact')];
    expect(await deps.identities.claim('org_a', 'email', 'pending@example.com', creating, async () => true)).toBeNull();
    // The holder's record lands 50 ms later: the racing claimant learns who holds the e-mail.
    let stored = false;
    setTimeout(() => (stored = true), 50);
    expect(await deps.identities.claim('org_a', 'email', 'pending@example.com', racing, async () => stored)).toBe(creating);
    // The holder's create fails and releases its claim 50 ms later: the next claimant gets it.
    setTimeout(() => void deps.identities.release('org_a', 'email', 'pending@example.com', creating), 50);
    expect(await deps.identities.claim('org_a', 'email', 'pending@example.com', later, async () => false)).toBeNull();
  });
});
