import { createLogger, newId } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { REQUIRED_SETTINGS, testEvent, useDatabase } from '../../../../test/support/integration';
import { instanceRecord, messageRecord, touchOf } from '../../../../test/support/messaging-records';
import { loadMessagingConfig } from '../config';
import { conversationHistory } from '../domain/conversations';
import { storeMessage } from '../domain/store-message';
import { createDeps } from '../wiring';
import type { MessageRecord } from './message.repository';

describe('conversation, message, number and template repositories', () => {
  let deps: ReturnType<typeof createDeps>;
  useDatabase(
    'messaging_conversations',
    (storage) => (deps = createDeps(storage, loadMessagingConfig(REQUIRED_SETTINGS), createLogger('test', 'silent'))),
    { requires: ['transactions'] },
  );

  it('makes one conversation of 8 concurrent first messages, counting every inbound one, the window only moving forward', async () => {
    const orgId = newId('organization');
    const [contactId, instanceId] = [newId('contact'), newId('chatInstance')];
    const later = new Date(Date.now() + 86_400_000);
    const touched = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        storeMessage(
          deps,
          touchOf(orgId, contactId, instanceId, { window_expires_at: n === 3 ? later : new Date() }),
          messageRecord(orgId, '', { instance_id: instanceId, direction: 'inbound', status: 'received', external_id: `wamid.c${n}` }),
          'message.received',
        ),
      ),
    );
    expect(new Set(touched.map((touch) => touch?.conversation.id)).size).toBe(1);
    const stored = await deps.conversations.getById(orgId, touched[0]!.conversation.id);
    expect(stored).toMatchObject({ unread_count: 8, window_expires_at: later, status: 'open', rev: 8 });
  });

  it("opens a new contact's conversation with its upsert, and a message hinted new by mistake still lands in the open one", async () => {
    const orgId = newId('organization');
    const [contactId, instanceId] = [newId('contact'), newId('chatInstance')];
    const inbound = (n: number) =>
      storeMessage(
        deps,
        { ...touchOf(orgId, contactId, instanceId), new_contact: true },
        messageRecord(orgId, '', { instance_id: instanceId, direction: 'inbound', status: 'received', external_id: `wamid.n${n}` }),
        'message.received',
      );
    const first = await inbound(1);
    // The conversation exists and is open: the hinted upsert meets it on the unique key, and the retry updates it.
    const second = await inbound(2);
    expect(second!.conversation.id).toBe(first!.conversation.id);
    expect(await deps.conversations.getById(orgId, first!.conversation.id)).toMatchObject({ unread_count: 2, status: 'open' });
  });

  it("answers an agent's history: the conversation with its newest messages first, and nothing of another organization", async () => {
    const orgId = newId('organization');
    const instanceId = newId('chatInstance');
    const touch = touchOf(orgId, newId('contact'), instanceId);
    const start = Date.now() - 60_000;
    for (const n of [1, 2, 3]) {
      const at = new Date(start + n * 1_000);
      const record = messageRecord(orgId, '', {
        instance_id: instanceId,
        content: `m${n}`,
        external_id: `wamid.h${n}`,
        created_at: at,
        updated_at: at,
      });
      await storeMessage(deps, touch, record, 'message.sent');
    }
    const conversation = await deps.conversations.find(orgId, touch.contact.id, 'chatapp', instanceId);
    const history = await conversationHistory(deps, orgId, conversation!.id, 2);
    expect(history.conversation.id).toBe(conversation!.id);
    expect(history.messages.map((message) => message.content)).toEqual(['m3', 'm2']);
    await expect(conversationHistory(deps, newId('organization'), conversation!.id, 2)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('stores a message and its conversation change in one transaction, once per provider id', async () => {
    const orgId = newId('organization');
    const instanceId = newId('chatInstance');
    const touch = touchOf(orgId, newId('contact'), instanceId);
    const record = messageRecord(orgId, '', { instance_id: instanceId, direction: 'inbound', status: 'received', external_id: 'wamid.1' });
    const stored = await Promise.all(
      [1, 2, 3].map((n) => storeMessage(deps, touch, { ...record, id: n === 1 ? record.id : newId('message') }, 'message.received')),
    );
    expect(stored.filter((result) => result !== null)).toHaveLength(1);
    const conversation = (await deps.conversations.find(orgId, touch.contact.id, 'chatapp', instanceId))!;
    expect(conversation.unread_count).toBe(1);
    expect(await deps.messages.countInConversation(orgId, conversation.id)).toBe(1);
    expect(await deps.messages.getByExternalId(instanceId, 'wamid.1')).toMatchObject({ conversation_id: conversation.id });
  });

  it('moves a message status only forward, once, under concurrent callbacks', async () => {
    const orgId = newId('organization');
    const record = messageRecord(orgId, newId('conversation'), { status: 'sent' });
    await deps.messages.insert(record, []);
    const outcomes = await Promise.all(
      (['delivered', 'read', 'delivered', 'read'] as const).map((status) =>
        deps.messages.applyStatus(record, status, null, new Date(), () => [testEvent(orgId)]),
      ),
    );
    expect((await deps.messages.getById(orgId, record.id))?.status).toBe('read');
    expect(outcomes.filter((written) => written?.status === 'read')).toHaveLength(1);
    expect(await deps.messages.applyStatus({ ...record, status: 'read' }, 'delivered', null, new Date(), () => [])).toBeNull();
  });

  it('applies a status from the recent copy of a sent message, and from the stored one once an edit or a merge made the copy stale', async () => {
    const orgId = newId('organization');
    const instanceId = newId('chatInstance');
    const touch = touchOf(orgId, newId('contact'), instanceId, { inbound: false });
    const record = messageRecord(orgId, '', {
      instance_id: instanceId,
      contact_id: touch.contact.id,
      status: 'sent',
      external_id: 'wamid.7',
    });
    await storeMessage(deps, touch, record, 'message.sent');
    const copy = (await deps.messages.getForStatus(instanceId, 'wamid.7'))!;
    // What the status's event is built from (the message as it will be).
    const seen: MessageRecord[] = [];
    const eventOf = (next: MessageRecord) => (seen.push(next), testEvent(orgId));
    const delivered = await deps.messages.applyStatus(copy, 'delivered', null, new Date(), (next) => [eventOf(next)]);
    expect(delivered).toMatchObject({ status: 'delivered', content: 'hello' });

    // Another writer edits the message and a merge moves it: the copy this replica keeps no longer says so.
    const stale = (await deps.messages.getForStatus(instanceId, 'wamid.7'))!;
    await deps.messages.applyEdit(record.id, 'edited', new Date(Date.now() + 1_000), () => []);
    await deps.transaction((session) =>
      deps.messages.moveConversation(orgId, stale.conversation_id, { conversation_id: 'conv_moved', contact_id: 'ct_moved' }, session),
    );
    const read = await deps.messages.applyStatus(stale, 'read', null, new Date(), (next) => [eventOf(next)]);
    expect(read).toMatchObject({ status: 'read', content: 'edited', conversation_id: 'conv_moved', contact_id: 'ct_moved' });
    expect(seen.at(-1)).toMatchObject({ status: 'read', content: 'edited', conversation_id: 'conv_moved', contact_id: 'ct_moved' });
    // Read is its last status: the copy is dropped, and a late repeat reads the stored message (and changes nothing).
    expect(await deps.messages.getForStatus(instanceId, 'wamid.7')).toMatchObject({ status: 'read' });
    expect(await deps.messages.applyStatus(stale, 'delivered', null, new Date(), () => [])).toBeNull();
  });

  it('gives a status callback that arrives while its send is being stored the message once stored, not nothing', async () => {
    const orgId = newId('organization');
    const instanceId = newId('chatInstance');
    const touch = touchOf(orgId, newId('contact'), instanceId, { inbound: false });
    const record = messageRecord(orgId, '', {
      instance_id: instanceId,
      contact_id: touch.contact.id,
      status: 'sent',
      external_id: 'wamid.8',
    });
    const storing = storeMessage(deps, touch, record, 'message.sent');
    // Asked before the transaction committed: a read would find nothing (and the provider would be told to retry).
    const found = await deps.messages.getForStatus(instanceId, 'wamid.8');
    expect(found).toMatchObject({ id: record.id, status: 'sent', conversation_id: (await storing)!.conversation.id });
    expect(await deps.messages.applyStatus(found!, 'delivered', null, new Date(), () => [testEvent(orgId)])).toMatchObject({
      status: 'delivered',
    });
  });

  it('applies an edit once, and never an older one over a newer', async () => {
    const orgId = newId('organization');
    const record = messageRecord(orgId, newId('conversation'));
    await deps.messages.insert(record, []);
    const [first, second] = [new Date(Date.UTC(2026, 0, 1, 10)), new Date(Date.UTC(2026, 0, 1, 11))];
    expect(await deps.messages.applyEdit(record.id, 'second', second, () => [])).toMatchObject({ content: 'second' });
    expect(await deps.messages.applyEdit(record.id, 'first', first, () => [])).toBeNull();
    expect(await deps.messages.applyEdit(record.id, 'second', second, () => [])).toBeNull();
    expect((await deps.messages.getById(orgId, record.id))?.content).toBe('second');
  });

  it('keeps one default number per organization, and finds a number by its provider handle', async () => {
    const orgId = newId('organization');
    const [one, two] = [instanceRecord(orgId), instanceRecord(orgId)];
    await deps.instances.insert(one);
    await deps.instances.insert(two);
    await deps.instances.setDefault(orgId, one.id);
    await deps.instances.setDefault(orgId, two.id);
    expect((await deps.instances.findDefault(orgId, ['qrcode']))?.id).toBe(two.id);
    expect((await deps.instances.getById(orgId, one.id))?.is_default).toBe(false);
    expect((await deps.instances.getByProviderRef('qrcode', two.provider_ref))?.id).toBe(two.id);
  });

  it("updates a template's approval status from the provider, and pages an number's templates", async () => {
    const orgId = newId('organization');
    const instanceId = newId('chatInstance');
    const template = (name: string, n: number) => ({
      id: newId('template'),
      org_id: orgId,
      instance_id: instanceId,
      name,
      language: 'en',
      category: 'MARKETING',
      status: 'PENDING',
      components: [],
      variables: [],
      created_at: new Date(n),
      updated_at: new Date(n),
    });
    const welcome = template('welcome', 1);
    await deps.templates.insert(welcome);
    await deps.templates.insert(template('promo', 2));
    expect(await deps.templates.setStatus(welcome, 'APPROVED', new Date(), [])).toBe(true);
    // A review read before that change (status PENDING) no longer matches: it changes nothing.
    expect(await deps.templates.setStatus(welcome, 'REJECTED', new Date(), [])).toBe(false);
    expect(await deps.templates.setStatus(template('missing', 3), 'APPROVED', new Date(), [])).toBe(false);
    const page = await deps.templates.list(orgId, instanceId, { limit: 1, after: undefined, status: 'APPROVED' });
    expect(page.items.map((found) => found.name)).toEqual(['welcome']);
  });
});
