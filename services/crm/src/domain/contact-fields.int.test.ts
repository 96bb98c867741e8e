import { createLogger, newId, RecordStore } from '@crm/shared';
import { describe, expect, it, vi } from 'vitest';
import { contactRecord } from '../../../../test/support/crm-records';
import { useDatabase } from '../../../../test/support/integration';
import { createDeps } from '../wiring';
import { resolveChannelContact } from './channel-contacts';
import { getContactFields } from './contact-fields';
import type { CrmDeps } from './deps';
import { completeMerge } from './merge-completion';

/** What other services read of a contact (GetContactFields, ResolveChannelContact): its own fields, on the real server. */
describe("a contact's own fields for other services", () => {
  let deps: CrmDeps;
  useDatabase('crm_contact_fields', (storage) => void (deps = createDeps(storage, createLogger('test', 'silent'))));

  it('answers the addresses and tags of a live contact, and NOT_FOUND naming the survivor for a merged one', async () => {
    const orgId = newId('organization');
    const survivor = await deps.contacts.insert(
      contactRecord(orgId, { name: 'Survivor', phone: '+15550100', chatapp_jid: '15550100@c.chatapp', tags: ['vip'] }),
      [],
    );
    expect(await getContactFields(deps, orgId, survivor.id)).toEqual({
      id: survivor.id,
      name: 'Survivor',
      phone: '+15550100',
      photoapp_username: null,
      chatapp_jid: '15550100@c.chatapp',
      socialmsg_psid: null,
      tags: ['vip'],
    });
    await expect(getContactFields(deps, newId('organization'), survivor.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const folded = await deps.contacts.insert(contactRecord(orgId, { name: 'Folded' }), []);
    await deps.contacts.merges.claim(folded, survivor.id, new Date());
    await completeMerge(deps, orgId, survivor.id, [folded.id]);
    await expect(getContactFields(deps, orgId, folded.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      details: { merged_into: survivor.id },
    });
  });

  it('resolves concurrent first messages of one sender to one new contact, answered with its fields', async () => {
    const orgId = newId('organization');
    const input = { channel: 'chatapp', identifier: '15550199@c.chatapp', name: 'Grace', phone: '+15550199' };
    const resolved = await Promise.all(Array.from({ length: 4 }, () => resolveChannelContact(deps, orgId, input)));
    expect(new Set(resolved.map((contact) => contact.id)).size).toBe(1);
    expect(resolved[0]).toMatchObject({ name: 'Grace', phone: '+15550199', chatapp_jid: '15550199@c.chatapp', tags: [] });
    expect(resolved[0]).not.toHaveProperty('notes_count');
    // Exactly one of the calls created it, and says so (messaging then opens its conversation with one upsert).
    expect(resolved.filter((contact) => contact.created)).toHaveLength(1);
    expect((await resolveChannelContact(deps, orgId, input)).created).toBeUndefined();
  });

  it("finds a sender in one read of its identity: the live holder, else a folded holder's survivor, else by phone", async () => {
    const orgId = newId('organization');
    const jid = '15550123@c.chatapp';
    const survivor = await deps.contacts.insert(contactRecord(orgId, { name: 'Survivor', chatapp_jid: '15550124@c.chatapp' }), []);
    // Folded into a survivor with an identity of its own: the tombstone keeps the identity, its messages go to the survivor.
    const folded = await deps.contacts.insert(contactRecord(orgId, { name: 'Folded', chatapp_jid: jid }), []);
    await deps.contacts.merges.claim(folded, survivor.id, new Date());
    await completeMerge(deps, orgId, survivor.id, [folded.id]);
    const byPhone = await deps.contacts.insert(contactRecord(orgId, { name: 'By phone', phone: '+15550125' }), []);

    const reads = vi.spyOn(RecordStore.prototype, 'findMany');
    const single = vi.spyOn(RecordStore.prototype, 'findOne');
    const contactReads = () =>
      [...reads.mock.contexts, ...single.mock.contexts].filter(
        (store) => (store as RecordStore<{ id: string }>).collection.collectionName === 'contacts',
      ).length;
    try {
      expect((await resolveChannelContact(deps, orgId, { channel: 'chatapp', identifier: jid })).id).toBe(survivor.id);
      // The identity's holders, then the survivor.
      expect(contactReads()).toBe(2);
      reads.mockClear();
      single.mockClear();
      const linked = await resolveChannelContact(deps, orgId, { channel: 'chatapp', identifier: '15550125@c.chatapp', phone: '+15550125' });
      expect(linked).toMatchObject({ id: byPhone.id, chatapp_jid: '15550125@c.chatapp' });
      // The identity's holders (none), then the phone's.
      expect(contactReads()).toBe(2);
    } finally {
      reads.mockRestore();
      single.mockRestore();
    }
  });
});
