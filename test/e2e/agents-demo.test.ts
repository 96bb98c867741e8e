import { describe, expect, it } from 'vitest';
import { seedDemoAgent } from '../../deploy/lib/demo-key';
import { addNumber, eventually, inbound, sim, uniquePhone } from '../support/messaging';
import { createTestOrg } from '../support/orgs';
import { testSystem } from '../support/system';

describe("npm start's demo agent", () => {
  it('is active and answers what a person sends through the simulator', async () => {
    const org = await createTestOrg({ plan: 'pro' });
    const number = await addNumber(org.orgId, 'qrcode', { isDefault: true });
    const agentId = await seedDemoAgent(testSystem().baseUrl, org.key);
    expect((await org.client.GET('/v1/ai-agents/{id}', { params: { path: { id: agentId } } })).data!.data.is_active).toBe(true);
    const phone = uniquePhone();
    await inbound(number, { from: phone, name: 'Demo Person', text: 'what are your prices?' });
    const reply = await eventually('the demo agent reply', async () => {
      const sent = (await sim<{ data: Array<{ body: { to: string; text?: string } }> }>(`sent?ref=${number.ref}`)).body.data;
      return sent.find((s) => s.body.to.startsWith(phone.slice(1)));
    });
    expect(reply.body.text).toBe('Our plans start at 10 dollars a month.');
  });
});
