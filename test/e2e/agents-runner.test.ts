import { describe, expect, it, onTestFinished } from 'vitest';
import { activeAgent, runsOf } from '../support/agents';
import { eventsOf } from '../support/events';
import { addNumber, eventually, inbound, sim, uniquePhone, type TestNumber } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';

/** What the simulator's QR bridge received for a number: the replies that reached the contact. */
async function sentTo(number: TestNumber, to?: string): Promise<Array<{ id: string; body: { to: string; text?: string }; at: string }>> {
  const response = await sim<{ data: Array<{ id: string; body: { to: string; text?: string }; at: string }> }>(`sent?ref=${number.ref}`);
  return response.body.data.filter((sent) => !to || sent.body.to.startsWith(to.slice(1)));
}

/**
 * How long a wait for the agent may take. Every wait ends as soon as what it waits for is observable (a reply at the
 * simulator, a stored message, a run's status), so this bound only decides when a stuck system fails the test: it is
 * sized for a loaded 2-core machine, not for how fast the agent usually is.
 */
const AGENT_WAIT_MS = 60_000;
const TEST_TIMEOUT_MS = 3 * AGENT_WAIT_MS;

/** `eventually` with the agent's bound. */
const observed = <T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> => eventually(what, check, AGENT_WAIT_MS);

async function conversationOf(org: TestOrg, phone: string): Promise<any> {
  return observed(`the conversation of ${phone}`, async () => {
    const contacts = await org.client.GET('/v1/contacts', { params: { query: { search: phone } } });
    const contact = contacts.data!.data[0]!;
    if (!contact) return undefined;
    return (await org.client.GET('/v1/conversations', { params: { query: { contact_id: contact.id } } })).data!.data[0]!;
  });
}

/** A fresh organization with a QR number and an agent answering it: each test owns its data, none depends on another. */
async function answeredNumber(plan: 'pro' | 'enterprise', agent: Record<string, unknown>) {
  const org = await createTestOrg({ plan });
  const number = await addNumber(org.orgId, 'qrcode', { name: 'Sales QR' });
  const created = await activeAgent(org.client, { scope: { sources: ['chatapp'], chatappInstanceIds: [number.id] }, ...agent });
  return { org, number, agent: created };
}

/** The conversation's messages, oldest first, once it holds `count` of them. */
async function storedMessages(org: TestOrg, conversationId: string, count: number): Promise<any[]> {
  // The reply is stored once the provider accepted it, so the simulator may hold it a moment before the API shows it.
  return observed(`${count} stored messages`, async () => {
    const listed = (
      await org.client.GET('/v1/conversations/{id}/messages', { params: { path: { id: conversationId }, query: { order: 'asc' } } })
    ).data!.data;
    return listed.length >= count ? listed : undefined;
  });
}

/** Runs matching `query` once there are `count` of them and none is still running. */
async function settledRuns(client: TestOrg['client'], query: Parameters<typeof runsOf>[1], count: number, what: string): Promise<any[]> {
  return observed(what, async () => {
    const found = await runsOf(client, query);
    return found.length === count && found.every((run) => run.status !== 'running') ? found : undefined;
  });
}

describe('the AI agent runner answers conversations and records every run', () => {
  it('an inbound message gets the agent reply through the simulator; the run is completed', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { org, number, agent } = await answeredNumber('enterprise', { name: 'Greeter' });
    const events = await eventsOf(org.orgId);
    onTestFinished(() => events.stop());
    const phone = uniquePhone();
    await inbound(number, { from: phone, name: 'Ana', text: 'How much is the price?' });
    const reply = await observed('the agent reply at the simulator', async () => (await sentTo(number, phone))[0]);
    expect(reply.body.text).toBe('Our plans start at 10 dollars.');
    const conversation = await conversationOf(org, phone);
    const messages = await storedMessages(org, conversation.id, 2);
    expect(messages.map((m: any) => [m.direction, m.sender.type])).toEqual([
      ['inbound', 'contact'],
      ['outbound', 'ai_agent'],
    ]);
    expect(messages[1]!.sender).toEqual({ type: 'ai_agent', id: agent.id, name: 'Greeter' });
    expect((await org.client.GET('/v1/conversations/{id}', { params: { path: { id: conversation.id } } })).data!.data.ai_agent).toEqual({
      id: agent.id,
      name: 'Greeter',
    });
    const [run] = await settledRuns(org.client, { conversation_id: conversation.id }, 1, 'the finished run');
    expect(run).toMatchObject({
      agent: { id: agent.id, name: 'Greeter', type: 'sales' },
      conversation_id: conversation.id,
      trigger_event: 'message.received.from_contact',
      status: 'completed',
      skip_reason: null,
      error_message: null,
      messages_sent: [{ message_id: messages[1]!.id, content: 'Our plans start at 10 dollars.' }],
      handoff: null,
      model: 'local-rules-v1',
    });
    expect(run.usage.tokens).toBeGreaterThan(0);
    expect(run.duration_ms).toBeGreaterThanOrEqual(0);
    expect((await org.client.GET('/v1/ai-agents/runs/{runId}', { params: { path: { runId: run.id } } })).data!.data).toEqual(run);
    await events.waitFor((all) => all.some((e) => e.type === 'message.sent' && e.data.object.id === messages[1]!.id), AGENT_WAIT_MS);
  });

  it('runs list filters apply to meta.total; runs are isolated between organizations', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { org, number, agent } = await answeredNumber('pro', {});
    // Three conversations at once: each gets its own run; the list is then read in pages of two.
    await Promise.all([0, 1, 2].map((i) => inbound(number, { from: uniquePhone(), name: `Ana ${i}`, text: 'How much is the price?' })));
    const runs = await settledRuns(org.client, {}, 3, 'three finished runs');
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed', 'completed']);

    const all = await org.client.GET('/v1/ai-agents/runs', { params: { query: { limit: 2 } } });
    expect(all.response.status).toBe(200);
    expect(all.data!.meta.total).toBe(3);
    expect(all.data!.meta.has_more).toBe(true);
    const completed = await org.client.GET('/v1/ai-agents/runs', { params: { query: { status: 'completed', limit: 1 } } });
    expect(completed.data!.meta.total).toBe(3);
    expect((await org.client.GET('/v1/ai-agents/runs', { params: { query: { status: 'skipped' } } })).data!.meta.total).toBe(0);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await org.client.GET('/v1/ai-agents/runs', { params: { query: { started_after: future } } })).data!.meta.total).toBe(0);
    const one = all.data!.data[0]!;
    const byConversation = await org.client.GET('/v1/ai-agents/runs', { params: { query: { conversation_id: one.conversation_id! } } });
    expect(byConversation.data!.meta.total).toBe(1);
    expect((await org.client.GET('/v1/ai-agents/runs', { params: { query: { agent_id: agent.id } } })).data!.meta.total).toBe(3);
    const next = await org.raw.get(`/v1/ai-agents/runs?limit=2&cursor=${all.data!.meta.next_cursor}`);
    expect(next.body.data.map((r: any) => r.id)).toEqual([runs[2]!.id]);
    for (const bad of ['status=done', 'started_after=yesterday', 'limit=0'])
      expect((await org.raw.get(`/v1/ai-agents/runs?${bad}`)).body.error.code).toBe('VALIDATION_ERROR');
    expect((await org.client.GET('/v1/ai-agents/runs', { params: { query: { agent_id: 'nope' } } })).error!.error.code).toBe('INVALID_ID');
    expect((await org.client.GET('/v1/ai-agents/runs/{runId}', { params: { path: { runId: 'nope' } } })).error!.error.code).toBe(
      'INVALID_ID',
    );
    expect(
      (await org.client.GET('/v1/ai-agents/runs/{runId}', { params: { path: { runId: 'run_0000000000000000000000' } } })).response.status,
    ).toBe(404);

    const other = await createTestOrg();
    expect((await other.client.GET('/v1/ai-agents/runs/{runId}', { params: { path: { runId: one.id } } })).response.status).toBe(404);
    expect((await other.client.GET('/v1/ai-agents/runs')).data!.meta.total).toBe(0);
  });

  it('a capped conversation gets skipped runs; a deleted agent keeps its runs readable', { timeout: TEST_TIMEOUT_MS }, async () => {
    const capped = await createTestOrg({ plan: 'pro' });
    const number = await addNumber(capped.orgId, 'qrcode');
    const agent = await activeAgent(capped.client, { behavior: { strategy: 'always', replyDelayMs: 0, maxRepliesPerConversation: 1 } });
    const phone = uniquePhone();
    await inbound(number, { from: phone, text: 'hello there' });
    await observed('the first reply', async () => (await sentTo(number, phone)).length === 1);
    await observed('the first run completed', async () => (await runsOf(capped.client, { status: 'completed' })).length === 1);
    for (const text of ['second', 'third']) await inbound(number, { from: phone, text });
    const skipped = await observed('two skipped runs', async () => {
      const runs = await runsOf(capped.client, { status: 'skipped' });
      return runs.length === 2 ? runs : undefined;
    });
    expect(skipped.map((r) => r.skip_reason)).toEqual(['reply_cap_reached', 'reply_cap_reached']);
    expect(skipped[0]).toMatchObject({ messages_sent: [], usage: null, error_message: null });
    expect(await sentTo(number, phone)).toHaveLength(1);

    expect((await capped.client.DELETE('/v1/ai-agents/{id}', { params: { path: { id: agent.id } } })).response.status).toBe(204);
    const after = await capped.client.GET('/v1/ai-agents/runs', { params: { query: { agent_id: agent.id } } });
    expect(after.data!.meta.total).toBe(3);
    expect(after.data!.data[0]!.agent).toEqual({ id: agent.id, name: 'Sales helper', type: 'sales' });
  });

  it(
    'two quick messages within replyDelayMs get one reply (debounce); the earlier run is superseded',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const quick = await createTestOrg({ plan: 'pro' });
      const number = await addNumber(quick.orgId, 'qrcode');
      // Sent back to back; the window leaves room for the second message to be slower to arrive on a loaded machine.
      await activeAgent(quick.client, { behavior: { strategy: 'always', replyDelayMs: 4000 } });
      const phone = uniquePhone();
      await inbound(number, { from: phone, text: 'hi' });
      await inbound(number, { from: phone, text: 'what is the price?' });
      const runs = await observed('a completed and a superseded run', async () => {
        const found = await runsOf(quick.client, {});
        return found.length === 2 && found.every((r) => r.status !== 'running') ? found : undefined;
      });
      expect(runs.map((r) => [r.status, r.skip_reason]).sort()).toEqual([
        ['completed', null],
        ['skipped', 'superseded'],
      ]);
      // The superseded run sent nothing, so the completed run's reply is the only one the contact gets.
      const replies = await observed('the reply at the simulator', async () => {
        const sent = await sentTo(number, phone);
        return sent.length > 0 ? sent : undefined;
      });
      expect(replies).toHaveLength(1);
      // The one reply answers the latest message.
      expect(replies[0]?.body.text).toBe('Our plans start at 10 dollars.');
      const completed = runs.find((r) => r.status === 'completed');
      expect(completed.messages_sent[0].delay_ms).toBeGreaterThanOrEqual(1000);
    },
  );

  it('skip reasons: outside scope, assigned to a person, another agent answering', { timeout: TEST_TIMEOUT_MS }, async () => {
    const busy = await createTestOrg({ plan: 'pro' });
    const number = await addNumber(busy.orgId, 'qrcode');
    const first = await activeAgent(busy.client, { name: 'First', behavior: { strategy: 'when_unassigned', replyDelayMs: 0 } });
    const second = await activeAgent(busy.client, { name: 'Second', behavior: { strategy: 'always', replyDelayMs: 0 } });
    const photoOnly = await activeAgent(busy.client, {
      name: 'Photo',
      scope: { sources: ['photoapp'] },
      behavior: { strategy: 'always', replyDelayMs: 0 },
    });
    const phone = uniquePhone();
    await inbound(number, { from: phone, text: 'hello' });
    const runs = await observed('three runs', async () => {
      const found = await runsOf(busy.client, {});
      return found.length === 3 && found.every((r) => r.status !== 'running') ? found : undefined;
    });
    const byAgent = (id: string) => runs.find((r) => r.agent.id === id);
    expect(byAgent(first.id)).toMatchObject({ status: 'completed' });
    expect(byAgent(second.id)).toMatchObject({ status: 'skipped', skip_reason: 'another_agent_answering' });
    expect(byAgent(photoOnly.id)).toMatchObject({ status: 'skipped', skip_reason: 'outside_scope' });

    const conversation = await conversationOf(busy, phone);
    await busy.client.POST('/v1/conversations/{id}/assign', {
      params: { path: { id: conversation.id } },
      body: { assigned_to: busy.memberIds[0]! },
    });
    await inbound(number, { from: phone, text: 'still there?' });
    const later = await observed('the runs of the second message', async () => {
      const found = await runsOf(busy.client, {});
      return found.length === 6 && found.every((r) => r.status !== 'running') ? found.slice(0, 3) : undefined;
    });
    expect(later.find((r) => r.agent.id === first.id)).toMatchObject({ status: 'skipped', skip_reason: 'conversation_assigned' });
    expect(later.find((r) => r.agent.id === second.id)).toMatchObject({ skip_reason: 'another_agent_answering' });
    expect(await sentTo(number, phone)).toHaveLength(1);
  });

  it(
    'a handoff keyword assigns the conversation (conversation.assigned), marks the run and stops the agent',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const org = await createTestOrg({ plan: 'enterprise' });
      const qr = await addNumber(org.orgId, 'qrcode', { name: 'Support QR' });
      const events = await eventsOf(org.orgId);
      onTestFinished(() => events.stop());
      const agent = await activeAgent(org.client, {
        name: 'Support bot',
        type: 'support',
        scope: { sources: ['chatapp'], chatappInstanceIds: [qr.id] },
        behavior: {
          strategy: 'always',
          replyDelayMs: 0,
          handoff: { enabled: true, assignTo: org.memberIds[1], triggers: [{ type: 'keywords', keywords: ['human', 'manager'] }] },
        },
      });
      const phone = uniquePhone();
      await inbound(qr, { from: phone, text: 'hi' });
      await observed('the first reply', async () => (await sentTo(qr, phone)).length === 1);
      const conversation = await conversationOf(org, phone);
      await inbound(qr, { from: phone, text: 'I want to talk to a human please' });
      const handedOff = await observed('the handoff run', async () => {
        const found = (await runsOf(org.client, { conversation_id: conversation.id })).find((r) => r.handoff);
        return found?.status === 'completed' ? found : undefined;
      });
      expect(handedOff.handoff).toMatchObject({ triggered: true, reason: expect.stringContaining('human') });
      expect(handedOff.handoff.summary).toContain('I want to talk to a human please');
      const view = (await org.client.GET('/v1/conversations/{id}', { params: { path: { id: conversation.id } } })).data!.data;
      expect(view.assigned_to).toEqual({ id: org.memberIds[1], name: 'Seller Person' });
      expect(view.ai_agent).toBeNull();
      await events.waitFor(
        (all) =>
          all.some(
            (e) =>
              e.type === 'conversation.assigned' &&
              e.data.object.id === conversation.id &&
              e.data.object.assigned_to?.id === org.memberIds[1],
          ),
        AGENT_WAIT_MS,
      );
      await inbound(qr, { from: phone, text: 'hello?' });
      const skipped = await observed('the run after the handoff', async () => {
        const found = (await runsOf(org.client, { conversation_id: conversation.id, agent_id: agent.id }))[0];
        return found?.skip_reason ? found : undefined;
      });
      expect(skipped.skip_reason).toBe('handed_off');
      expect(await sentTo(qr, phone)).toHaveLength(1);
    },
  );

  it(
    'an official number outside the 24-hour window refuses the reply: the run fails with the error',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const windowed = await createTestOrg({ plan: 'pro' });
      const official = await addNumber(windowed.orgId, 'official');
      await activeAgent(windowed.client, {
        behavior: {
          strategy: 'always',
          replyDelayMs: 0,
          handoff: { enabled: true, assignTo: windowed.memberIds[0], triggers: [{ type: 'consecutive_failures', count: 2 }] },
        },
      });
      const phone = uniquePhone();
      const old = Date.now() - 30 * 3_600_000;
      await inbound(official, { from: phone, text: 'old message', timestamp: new Date(old).toISOString() });
      const failed = await observed('the failed run', async () => (await runsOf(windowed.client, { status: 'failed' }))[0]);
      expect(failed.error_message).toContain('OUTSIDE_MESSAGING_WINDOW');
      expect(failed.handoff).toBeNull();
      await inbound(official, { from: phone, text: 'another old one', timestamp: new Date(old + 1_000).toISOString() });
      const second = await observed('two failed runs', async () => {
        const found = await runsOf(windowed.client, { status: 'failed' });
        return found.length === 2 ? found[0] : undefined;
      });
      expect(second.handoff).toMatchObject({ triggered: true, reason: '2 failed runs in a row.' });
      const conversation = (await windowed.client.GET('/v1/conversations')).data!.data[0]!;
      expect(conversation!.assigned_to?.id).toBe(windowed.memberIds[0]);
    },
  );
  it(
    'a conversation folded by a contact merge while its reply waits: the run fails saying so, and sends nothing',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { org, number } = await answeredNumber('enterprise', { behavior: { strategy: 'always', replyDelayMs: 5_000 } });
      const [kept, folded] = [uniquePhone(), uniquePhone()];
      await inbound(number, { from: kept, name: 'Kept', text: 'Hello' });
      await inbound(number, { from: folded, name: 'Folded', text: 'Hello again' });
      const [survivor, gone] = [await conversationOf(org, kept), await conversationOf(org, folded)];
      // The run is recorded and waits: the merge comes within its reply delay.
      await observed('the waiting run', async () => (await runsOf(org.client, { conversation_id: gone.id })).length === 1);
      const merged = await org.raw.post(`/v1/contacts/${survivor.contact.id}/merge`, { contact_ids: [gone.contact.id] });
      expect(merged.status, merged.text).toBe(200);
      const [run] = await settledRuns(org.client, { conversation_id: gone.id }, 1, 'the run of the folded conversation');
      expect(run).toMatchObject({ status: 'failed', error_message: 'The conversation no longer exists.', messages_sent: [] });
      expect(await sentTo(number, folded)).toEqual([]);
    },
  );
});
