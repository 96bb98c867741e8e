import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawApi } from '../support/api';
import { createTestOrg } from '../support/orgs';
import { testSystem } from '../support/system';
import { eventually, sleep, startReceiver, type Receiver } from '../support/webhook-receiver';

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

/** Every file under `dir` (logs are one file per process; spans one JSONL file per process). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const read = (files: string[]) => files.map((file) => ({ file, text: readFileSync(file, 'utf8') }));

describe('secrets never in logs and traces', () => {
  it('neither API keys (valid or wrong) nor webhook secrets appear in any process log or span', async () => {
    const { logDir, tracesDir } = testSystem();
    const org = await createTestOrg();
    const wrongKey = `sk_live_${randomBytes(24).toString('hex')}`;

    // Requests with the key, with a wrong one, and with malformed ones in the places a key may be sent.
    expect((await org.raw.get('/v1/me')).status).toBe(200);
    expect((await org.raw.get('/v1/contacts?limit=1')).status).toBe(200);
    expect((await rawApi(wrongKey).get('/v1/me')).status).toBe(401);
    expect((await rawApi(wrongKey).post('/v1/contacts', { name: 'x' })).status).toBe(401);
    expect((await rawApi().get('/v1/me', { headers: { authorization: `Basic ${wrongKey}`, 'x-api-key': wrongKey } })).status).toBe(401);
    expect((await rawApi(`${wrongKey} extra`).get('/v1/me')).status).toBe(401);

    // Secrets created, rotated, and used to sign deliveries that succeed, fail and are redirected.
    const receiver = await startReceiver();
    receivers.push(receiver);
    const created = await org.raw.post('/v1/webhooks', { name: 'hygiene', url: receiver.url, events: ['contact.created'] });
    expect(created.status, created.text).toBe(201);
    const webhookId = created.body.data.id as string;
    const rotated = await org.raw.post(`/v1/webhooks/${webhookId}/rotate-secret`, { overlap_hours: 1 });
    expect(rotated.status, rotated.text).toBe(200);
    const secrets = [created.body.data.secret as string, rotated.body.data.secret as string];
    expect((await org.raw.get(`/v1/webhooks/${webhookId}`)).status).toBe(200);
    await org.client.POST('/v1/contacts', { body: { name: 'Hygiene Person' } });
    await receiver.waitFor((all) => all.length >= 1, 5_000);
    receiver.answerWith({ status: 500 });
    await org.client.POST('/v1/contacts', { body: { name: 'Hygiene Failure' } });
    await receiver.waitFor((all) => all.length >= 2, 5_000);
    receiver.answerWith({ status: 302, headers: { location: 'http://127.0.0.1:1/' } });
    expect((await org.raw.post(`/v1/webhooks/${webhookId}/test`, {})).status).toBeLessThan(500);

    // Spans are flushed every 200 ms; wait until the rotate request's span is written, then a little more.
    await eventually(
      async () =>
        read(filesUnder(tracesDir)).some(({ text }) => text.includes(`/v1/webhooks/${webhookId}/rotate-secret`)) ? true : undefined,
      10_000,
      'the rotate request span',
    );
    await sleep(1_000);

    const files = read([...filesUnder(logDir), ...filesUnder(tracesDir)]);
    expect(files.filter(({ file }) => file.endsWith('.jsonl')).length).toBeGreaterThan(4);
    const forbidden = [
      org.key,
      org.key.slice('sk_live_'.length),
      wrongKey,
      wrongKey.slice('sk_live_'.length),
      'whsec_',
      ...secrets.map((secret) => secret.slice('whsec_'.length)),
    ];
    const leaks = files.flatMap(({ file, text }) =>
      forbidden.filter((value) => text.includes(value)).map((value) => `${file}: ${value.slice(0, 14)}…`),
    );
    expect(leaks).toEqual([]);
  });
});
