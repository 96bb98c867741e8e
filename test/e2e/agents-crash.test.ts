import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody } from '../support/agents';
import { isolatedAgents } from '../support/isolated-agents';
import { addNumber, eventually, inbound, sim, uniquePhone, type TestNumber } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';

const MESSAGES = 24;

describe('two runner replicas, one SIGKILLed mid-stream: every inbound message is answered exactly once', () => {
  let org: TestOrg;
  let qr: TestNumber;
  let agents: Awaited<ReturnType<typeof isolatedAgents>>;

  beforeAll(async () => {
    org = await createTestOrg({ plan: 'pro' });
    qr = await addNumber(org.orgId, 'qrcode');
    // A short lease and idle check: the survivor takes over a dead replica's runs within about two seconds.
    agents = await isolatedAgents({ replicas: 2, name: 'crash', env: { AGENTS_RUN_LEASE_MS: '1500', AGENTS_IDLE_CHECK_MS: '300' } });
    await Promise.all(agents.replicas.map((replica) => replica.start()));
  }, 120_000);
  afterAll(async () => {
    await agents?.stop();
  });

  it('answers each conversation once although a replica dies while runs wait, execute and events are uncommitted', async () => {
    const [doomed, survivor] = agents.replicas;
    if (!doomed || !survivor) throw new Error('two replicas expected');
    const created = await doomed.client.createAgent({
      org_id: org.orgId,
      id: '',
      body: agentBody({ behavior: { strategy: 'always', replyDelayMs: 400 } }),
      plan: 'pro',
    });
    await doomed.client.activateAgent({ org_id: org.orgId, id: created.id, body: undefined, plan: 'pro' });

    const phones = Array.from({ length: MESSAGES }, () => uniquePhone());
    for (const [index, phone] of phones.entries()) {
      await inbound(qr, { from: phone, text: `price please (${index})` });
      if (index === MESSAGES / 3) await doomed.kill();
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const repliesByPhone = async () => {
      const sent = (await sim<{ data: Array<{ body: { to: string } }> }>(`sent?ref=${qr.ref}`)).body.data;
      return phones.map((phone) => sent.filter((s) => s.body.to.startsWith(phone.slice(1))).length);
    };
    // A dead member's partitions move to the survivor after the group's session timeout (kafkajs: 30 s).
    await eventually('a reply to every conversation', async () => (await repliesByPhone()).every((count) => count >= 1), 75_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await repliesByPhone()).toEqual(phones.map(() => 1));

    const runs = await survivor.client.listRuns({ org_id: org.orgId, page: { limit: 100, after: undefined }, filter: undefined });
    expect(runs.page?.total).toBe(MESSAGES);
    expect(runs.items.every((run) => run.status === 'completed' && run.messages_sent.length === 1)).toBe(true);
    expect(new Set(runs.items.map((run) => run.conversation_id)).size).toBe(MESSAGES);
  }, 150_000);
});
