import { EVENT_TYPE_NAMES } from '@crm/shared/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody } from '../support/agents';
import { rawListAll } from '../support/api';
import { addNumber, addTemplate, configureNumber, eventually, inbound, sim, uniquePhone } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { createFunnel } from '../support/pipelines';
import { standardVerifies, xSignatureMatches } from '../support/signatures';
import { testSystem } from '../support/system';
import { startReceiver, type ReceivedRequest, type Receiver } from '../support/webhook-receiver';

/**
 * The "done when": one subscriber to all 48 kinds, a system driven only through the API and the provider
 * simulator's control API along the spec's flows, and every kind received — each body checked against its kind's
 * schema in the event catalogue by the receiver (test/support/event-contract.ts). Beside the kinds, what an
 * integrator relies on: a broadcast's message events carry broadcast_id, an agent's reply agent_run_id, and the
 * schedulers (two replicas of each service run) fire a task's alarms and a window's end exactly once.
 */
describe('every event kind of the catalogue reaches a subscriber', () => {
  let org: TestOrg;
  let receiver: Receiver;
  let api: TestOrg['raw'];
  /** The kinds GET /v1/webhooks/event-types advertises, and the signing secret of the one subscription to all. */
  let advertised: string[];
  let secret: string;
  let webhookId: string;
  const ok = async <T = any>(call: Promise<{ status: number; body: any; text: string }>, status = 200): Promise<T> => {
    const response = await call;
    expect(response.status, response.text).toBe(status);
    return response.body?.data as T;
  };
  const of = (type: string) => receiver.received.filter((request) => request.event.type === type);
  /** Distinct events (delivery is at-least-once: a retried event comes again with its id) of a kind that match. */
  const distinct = (type: string, match: (data: any) => boolean) =>
    new Set(
      of(type)
        .filter((request) => match(request.event.data))
        .map((request) => request.event.id),
    ).size;
  const find = (type: string, match: (data: any) => boolean) => of(type).find((request) => match(request.event.data));
  const waitFor = (what: string, type: string, match: (data: any) => boolean = () => true, timeoutMs = 20_000) =>
    eventually(`${what} (${type})`, async () => find(type, match), timeoutMs) as Promise<ReceivedRequest>;

  beforeAll(async () => {
    org = await createTestOrg({ plan: 'enterprise' });
    api = org.raw;
    receiver = await startReceiver();
    advertised = (await rawListAll<{ type: string }>(api, '/v1/webhooks/event-types')).map((type) => type.type);
    expect([...advertised].sort()).toEqual([...EVENT_TYPE_NAMES].sort());
    const webhook = await ok<{ id: string; secret: string }>(
      api.post('/v1/webhooks', { name: 'everything', url: receiver.url, events: advertised }),
      201,
    );
    secret = webhook.secret;
    webhookId = webhook.id;
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('drives every flow and receives each of the 48 kinds', { timeout: 180_000 }, async () => {
    await Promise.all([crmFlows(), messagingFlows(), broadcastFlows(), agentFlows(), replayFlow()]);
    const missing = await eventually(
      'every kind delivered',
      async () => {
        const got = new Set(receiver.received.map((request) => request.event.type));
        const left = advertised.filter((type) => !got.has(type));
        return left.length === 0 ? left : undefined;
      },
      30_000,
    ).catch(() => advertised.filter((type) => of(type).length === 0));
    expect(missing).toEqual([]);
    // Every delivery matched the catalogue (the receiver records violations and waitFor fails on the first)…
    await receiver.waitFor(() => true);
    // …and was signed with the subscription's secret under both schemes, over the bytes received.
    const unsigned = receiver.received.filter((request) => !(xSignatureMatches(request, secret) && standardVerifies(request, secret)));
    expect(unsigned.map((request) => `${request.event.type} ${request.event.id}`)).toEqual([]);
  });

  /** A replay of the contacts created so far to the subscription: webhook.replay.completed once it is done. */
  async function replayFlow(): Promise<void> {
    const first = await waitFor('a contact to replay', 'contact.created');
    const since = new Date(Date.parse(first.event.created_at) - 1_000).toISOString();
    const replay = await ok<{ id: string }>(api.post(`/v1/webhooks/${webhookId}/replay`, { since, types: ['contact.created'] }), 202);
    const completed = await waitFor('the replay completed', 'webhook.replay.completed', (data) => data.object.id === replay.id, 30_000);
    expect(completed.event.data.object).toMatchObject({ webhook_id: webhookId, status: 'completed', failed: 0 });
    expect(completed.event.data.object.delivered).toBeGreaterThan(0);
  }

  /** Contacts, notes, companies, deals, tasks (with their alarms), merge and opt-out: API writes. */
  async function crmFlows(): Promise<void> {
    const contact = await ok(api.post('/v1/contacts', { name: 'Ana Event', email: 'ana.event@example.com', tags: ['lead'] }), 201);
    await ok(api.patch(`/v1/contacts/${contact.id}`, { name: 'Ana Events' }));
    await ok(api.post(`/v1/contacts/${contact.id}/tags`, { tags: ['vip'] }));
    await ok(api.delete(`/v1/contacts/${contact.id}/tags/lead`), 204);
    await ok(api.post(`/v1/contacts/${contact.id}/notes`, { content: 'Called her' }), 201);

    const company = await ok(api.post('/v1/companies', { name: 'Events Inc' }), 201);
    await ok(api.patch(`/v1/companies/${company.id}`, { sector: 'retail' }));
    await ok(api.delete(`/v1/companies/${company.id}`), 204);

    const funnel = await createFunnel(org.client, { name: 'Sales' });
    const other = await createFunnel(org.client, { name: 'Renewals' });
    const deal = await ok(api.post('/v1/deals', { title: 'Big deal', funnel_id: funnel.id, contact_ids: [contact.id] }), 201);
    await ok(api.patch(`/v1/deals/${deal.id}`, { value: 100, assigned_to: org.memberIds[1] }));
    await ok(api.post(`/v1/deals/${deal.id}/move`, { stage_id: funnel.stages[1].id }));
    await ok(api.post(`/v1/deals/${deal.id}/transfer`, { funnel_id: other.id }));
    await ok(api.post(`/v1/deals/${deal.id}/notes`, { content: 'Budget approved' }), 201);
    await ok(api.delete(`/v1/deals/${deal.id}`), 204);

    const dueAt = new Date(Date.now() + 1_500).toISOString();
    const task = await ok(api.post('/v1/tasks', { title: 'Call Ana', due_at: dueAt, contact_id: contact.id }), 201);
    const done = await ok(api.post('/v1/tasks', { title: 'Send the deck' }), 201);
    await ok(api.post(`/v1/tasks/${done.id}/complete`));
    const due = await waitFor('the task falls due', 'task.due', (data) => data.object.id === task.id);
    expect(Date.parse(due.event.created_at)).toBeGreaterThanOrEqual(Date.parse(dueAt));
    await waitFor('the task is overdue', 'task.overdue', (data) => data.object.id === task.id);

    const twin = await ok(api.post('/v1/contacts', { name: 'Ana (duplicate)', phone: '+15557770001', tags: ['imported'] }), 201);
    const merged = await ok(api.post(`/v1/contacts/${contact.id}/merge`, { contact_ids: [twin.id] }));
    expect(merged).toMatchObject({ id: contact.id, phone: '+15557770001', tags: expect.arrayContaining(['vip', 'imported']) });
    const mergeEvent = await waitFor('the merge', 'contact.merged', (data) => data.object.id === contact.id);
    expect(mergeEvent.event.data.merged_ids).toEqual([twin.id]);

    const optOut = await ok(api.post(`/v1/contacts/${contact.id}/opt-out`));
    expect(optOut).toMatchObject({ contact: { id: contact.id }, source: 'api', channel: null });
    await waitFor('the API opt-out', 'contact.opted_out', (data) => data.contact.id === contact.id && data.source === 'api');

    const gone = await ok(api.post('/v1/contacts', { name: 'Leaving soon' }), 201);
    await ok(api.delete(`/v1/contacts/${gone.id}`), 204);

    // Two replicas run each scheduler: each alarm fired once.
    expect(distinct('task.due', (data) => data.object.id === task.id)).toBe(1);
    expect(distinct('task.overdue', (data) => data.object.id === task.id)).toBe(1);
    expect(of('task.due').some((request) => request.event.data.object.id === done.id)).toBe(false);
  }

  /** Conversations, messages, channels and templates, driven through the provider simulator. */
  async function messagingFlows(): Promise<void> {
    const qr = await addNumber(org.orgId, 'qrcode', { name: 'Events QR' });
    const phone = uniquePhone();
    const first = await inbound(qr, { from: phone, name: 'Bruno', text: 'Hello there' });
    const created = await waitFor('the first message', 'conversation.created', (data) => data.object.contact.name === 'Bruno');
    const conversationId = created.event.data.object.id as string;
    const received = await waitFor('the inbound message', 'message.received', (data) => data.object.external_id === first.id);
    const contactId = received.event.data.object.contact_id as string;

    await sim('edit', { channel: 'qrcode', to_number: qr.ref, from: phone, id: first.id, text: 'Hello there!' });
    await sim('reaction', { channel: 'qrcode', to_number: qr.ref, from: phone, id: first.id, emoji: '👍' });
    const sent = await ok(
      api.post('/v1/messages/send', { contact_id: contactId, channel: 'chatapp', instance_id: qr.id, content: 'Hi Bruno' }),
      201,
    );
    await waitFor('the reply is read', 'message.read', (data) => data.object.id === sent.id);
    await waitFor('the reply was delivered', 'message.delivered', (data) => data.object.id === sent.id);
    await sim('delete', { channel: 'qrcode', to_number: qr.ref, from: phone, id: first.id });
    const deleted = await waitFor('the deleted message', 'message.deleted', (data) => data.object.external_id === first.id);
    expect(deleted.event.data.object.content).toBe('Hello there!');
    expect((await api.get(`/v1/messages/${deleted.event.data.object.id}`)).status).toBe(404);
    const reaction = await waitFor('the reaction', 'message.reaction.added', (data) => data.object.external_id === first.id);
    expect(reaction.event.data.reaction.emoji).toBe('👍');

    await ok(api.post(`/v1/conversations/${conversationId}/assign`, { assigned_to: org.memberIds[0] }));
    await ok(api.post(`/v1/conversations/${conversationId}/assign`, { assigned_to: null }));
    await ok(api.post(`/v1/conversations/${conversationId}/close`));
    await inbound(qr, { from: phone, text: 'Are you there?' });
    await waitFor('the closed conversation gets a message', 'conversation.reopened', (data) => data.object.id === conversationId);
    const unassigned = await waitFor('the unassign', 'conversation.unassigned', (data) => data.object.id === conversationId);
    expect(unassigned.event.data.previous.assigned_to.id).toBe(org.memberIds[0]);

    await inbound(qr, { from: phone, text: 'STOP' });
    await waitFor('the STOP keyword', 'contact.opted_out', (data) => data.contact.id === contactId && data.source === 'keyword');

    await configureNumber(qr, { fail_next: [{ mode: 'failed_status', code: 131026, message: 'Message undeliverable' }] });
    const doomed = await ok(
      api.post('/v1/messages/send', { contact_id: contactId, channel: 'chatapp', instance_id: qr.id, content: 'Lost' }),
      201,
    );
    const failed = await waitFor('the failed delivery', 'message.failed', (data) => data.object.id === doomed.id);
    expect(failed.event.data.object.error).toEqual({ code: '131026', message: 'Message undeliverable' });

    await configureNumber(qr, { connected: false });
    await configureNumber(qr, { connected: true });
    await sim('qr', { channel: 'qrcode', to_number: qr.ref });
    const qrEvent = await waitFor('a new QR code', 'channel.qr.updated', (data) => data.object.id === qr.id);
    expect(qrEvent.event.data.object.status).toBe('connecting');
    await waitFor('the number went offline', 'channel.disconnected', (data) => data.object.id === qr.id);
    await waitFor('the number came back', 'channel.connected', (data) => data.object.id === qr.id);

    await officialFlows();
  }

  /** An official number: the 24-hour window closing, and the provider's template reviews. */
  async function officialFlows(): Promise<void> {
    const official = await addNumber(org.orgId, 'official', { name: 'Events official' });
    // The contact wrote 24 hours ago less 2 seconds: the free-text window closes in 2 seconds.
    const windowHours = Number(testSystem().env.MESSAGING_WINDOW_HOURS ?? 24);
    const writtenAt = new Date(Date.now() - windowHours * 3_600_000 + 2_000);
    await inbound(official, { from: uniquePhone(), name: 'Carla', text: 'Is it still on?', timestamp: writtenAt.toISOString() });
    const expired = await waitFor('the window closes', 'conversation.window.expired', (data) => data.object.contact.name === 'Carla');
    expect(Date.parse(expired.event.created_at)).toBeGreaterThanOrEqual(Date.parse(expired.event.data.object.window_expires_at));
    expect(distinct('conversation.window.expired', (data) => data.object.contact.name === 'Carla')).toBe(1);

    await addTemplate(org.orgId, official.id, { name: 'spring_sale', status: 'PENDING' });
    await addTemplate(org.orgId, official.id, { name: 'bad_format', status: 'PENDING' });
    await sim('templates', { channel: 'official', to_number: official.ref, name: 'spring_sale', language: 'en_US', status: 'APPROVED' });
    const reason = 'INVALID_FORMAT';
    await sim('templates', {
      channel: 'official',
      to_number: official.ref,
      name: 'bad_format',
      language: 'en_US',
      status: 'REJECTED',
      reason,
    });
    await waitFor('the approval', 'template.approved', (data) => data.object.name === 'spring_sale');
    const rejected = await waitFor('the rejection', 'template.rejected', (data) => data.object.name === 'bad_format');
    expect(rejected.event.data.reason).toBe(reason);
  }

  /** A broadcast that completes (its message events carry broadcast_id) and one whose every send is refused. */
  async function broadcastFlows(): Promise<void> {
    const number = await addNumber(org.orgId, 'qrcode', { name: 'Broadcast QR' });
    const target = await ok(api.post('/v1/contacts', { name: 'Dora Broadcast', phone: uniquePhone() }), 201);
    const body = (name: string) => ({
      name,
      chatappInstanceIds: [number.id],
      audience: { type: 'contacts', contactIds: [target.id] },
      message: { type: 'text', content: 'Spring offer' },
    });
    const good = await ok(api.post('/v1/broadcasts', body('Spring')), 201);
    await ok(api.post(`/v1/broadcasts/${good.id}/launch`, {}), 202);
    await waitFor('the broadcast starts', 'broadcast.started', (data) => data.object.id === good.id);
    const completed = await waitFor('the broadcast ends', 'broadcast.completed', (data) => data.object.id === good.id);
    expect(completed.event.data.object).toMatchObject({ status: 'completed', stats: { total: 1, failed: 0 } });
    const sent = await waitFor('its message', 'message.sent', (data) => data.broadcast_id === good.id);
    await waitFor(
      'its delivery',
      'message.delivered',
      (data) => data.broadcast_id === good.id && data.object.id === sent.event.data.object.id,
    );

    await configureNumber(number, {
      fail_next: [{ mode: 'error', code: 131026, message: 'Receiver is incapable of receiving this message' }],
    });
    const bad = await ok(api.post('/v1/broadcasts', body('Refused')), 201);
    await ok(api.post(`/v1/broadcasts/${bad.id}/launch`, {}), 202);
    const failed = await waitFor('every send refused', 'broadcast.failed', (data) => data.object.id === bad.id);
    expect(failed.event.data.object).toMatchObject({ status: 'failed', stats: { total: 1, failed: 1 } });
  }

  /** An AI agent: a completed run (its reply carries agent_run_id), a handoff, and a failed run. */
  async function agentFlows(): Promise<void> {
    const qr = await addNumber(org.orgId, 'qrcode', { name: 'Agent QR' });
    const official = await addNumber(org.orgId, 'official', { name: 'Agent official' });
    const agent = await ok(
      api.post(
        '/v1/ai-agents',
        agentBody({
          name: 'Events agent',
          scope: { sources: ['chatapp'], chatappInstanceIds: [qr.id, official.id] },
          behavior: {
            strategy: 'always',
            replyDelayMs: 0,
            handoff: { enabled: true, assignTo: org.memberIds[1], triggers: [{ type: 'keywords', keywords: ['human'] }] },
          },
        }),
      ),
      201,
    );
    await ok(api.post(`/v1/ai-agents/${agent.id}/activate`));
    await inbound(qr, { from: uniquePhone(), name: 'Eva', text: 'How much is the price?' });
    const completed = await waitFor('the agent answers', 'agent.run.completed', (data) => data.object.messages_sent.length === 1);
    const runId = completed.event.data.object.id as string;
    const reply = await waitFor('its reply', 'message.sent', (data) => data.agent_run_id === runId);
    expect(reply.event.data.object.id).toBe(completed.event.data.object.messages_sent[0].message_id);

    await inbound(qr, { from: uniquePhone(), name: 'Fabio', text: 'I want a human please' });
    const handoff = await waitFor('the handoff', 'agent.handoff.requested', (data) => data.object.handoff?.triggered === true);
    expect(handoff.event.data.object.handoff.reason).toContain('human');

    // A message written 30 hours ago: the official window is closed, the reply is refused, the run fails.
    const old = new Date(Date.now() - 30 * 3_600_000).toISOString();
    await inbound(official, { from: uniquePhone(), name: 'Gil', text: 'Hello?', timestamp: old });
    const failed = await waitFor('the refused reply', 'agent.run.failed', (data) =>
      data.object.error_message?.includes('OUTSIDE_MESSAGING_WINDOW'),
    );
    expect(failed.event.data.object.status).toBe('failed');
  }
});
