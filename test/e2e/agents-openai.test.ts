import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '@crm/dev-tools/fake-openai';
import { agentBody } from '../support/agents';
import { isolatedAgents } from '../support/isolated-agents';
import { addNumber, eventually, inbound, sim, uniquePhone, type TestNumber } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';

const API_KEY = 'sk-test-agents-e2e-key';

describe('the runner through the OpenAI-compatible adapter, against the fake chat-completions server', () => {
  let org: TestOrg;
  let qr: TestNumber;
  let fake: FakeOpenAiServer;
  let agents: Awaited<ReturnType<typeof isolatedAgents>>;

  beforeAll(async () => {
    org = await createTestOrg({ plan: 'pro' });
    qr = await addNumber(org.orgId, 'qrcode');
    fake = await startFakeOpenAiServer({ apiKey: API_KEY });
    agents = await isolatedAgents({
      replicas: 1,
      name: 'openai',
      env: {
        MODEL_PROVIDER: 'openai',
        OPENAI_BASE_URL: fake.baseUrl,
        OPENAI_API_KEY: API_KEY,
        OPENAI_MODEL: 'fake-model',
        MODEL_RETRIES: '1',
      },
    });
    await agents.replicas[0]?.start();
  }, 90_000);
  afterAll(async () => {
    await agents?.stop();
    await fake?.close();
  });

  it('answers with the model, records its usage, retries a 5xx, and hands off when the model asks for a person', async () => {
    const replica = agents.replicas[0];
    if (!replica) throw new Error('replica expected');
    const body = agentBody({
      behavior: {
        strategy: 'always',
        replyDelayMs: 0,
        handoff: { enabled: true, assignTo: org.memberIds[0], triggers: [{ type: 'model_request' }] },
      },
      aiConfig: { instructions: 'You are the shop assistant.', model: null, temperature: 0.4 },
    });
    const agent = await replica.client.createAgent({ org_id: org.orgId, id: '', body, plan: 'pro' });
    await replica.client.activateAgent({ org_id: org.orgId, id: agent.id, body: undefined, plan: 'pro' });

    fake.script(1, { kind: 'server_error', status: 503 });
    const phone = uniquePhone();
    await inbound(qr, { from: phone, text: 'do you ship to Porto?' });
    const reply = await eventually('the model reply at the simulator', async () => {
      const sent = (await sim<{ data: Array<{ body: { to: string; text?: string } }> }>(`sent?ref=${qr.ref}`)).body.data;
      return sent.find((s) => s.body.to.startsWith(phone.slice(1)));
    });
    expect(reply.body.text).toContain('do you ship to Porto?');
    const chat = fake.requests.filter((r) => r.authorized);
    expect(chat.length).toBe(2);
    expect(chat[1]?.body?.model).toBe('fake-model');
    expect(chat[1]?.body?.messages?.at(-1)).toEqual({ role: 'user', content: 'do you ship to Porto?' });
    const runs = await eventually('the completed run', async () => {
      const found = await replica.client.listRuns({ org_id: org.orgId, page: { limit: 10, after: undefined }, filter: undefined });
      return found.items[0]?.status === 'completed' ? found.items : undefined;
    });
    expect(runs[0]?.model).toBe('fake-model');
    expect(runs[0]?.usage?.tokens).toBeGreaterThan(0);

    await inbound(qr, { from: phone, text: 'I need a human for this' });
    const handoff = await eventually('the handoff run', async () => {
      const found = await replica.client.listRuns({ org_id: org.orgId, page: { limit: 10, after: undefined }, filter: undefined });
      return found.items.find((run) => run.handoff?.triggered);
    });
    expect(handoff.status).toBe('completed');
    const conversation = (await org.client.GET('/v1/conversations', { params: { query: { assigned_to: org.memberIds[0] } } })).data!
      .data[0]!;
    expect(conversation?.assigned_to?.id).toBe(org.memberIds[0]);
  });
});
