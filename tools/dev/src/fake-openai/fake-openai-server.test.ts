import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fake-openai-server';

let fake: FakeOpenAiServer;
beforeAll(async () => {
  fake = await startFakeOpenAiServer({ apiKey: 'sk-fake' });
});
afterAll(() => fake.close());

const post = (path: string, body: unknown, key = 'sk-fake') =>
  fetch(`${fake.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('fake OpenAI server', () => {
  it('plays the script in order, then answers normally, and records every request', async () => {
    fake.reset();
    fake.script(1, { kind: 'server_error', status: 502 });
    fake.script(1, { kind: 'rate_limit', retryAfterSeconds: 7, retryAfterMs: 7000 });
    const body = { model: 'm', messages: [{ role: 'user', content: 'hello' }] };
    expect((await post('/chat/completions', body)).status).toBe(502);
    const limited = await post('/chat/completions', body);
    expect([limited.status, limited.headers.get('retry-after'), limited.headers.get('retry-after-ms')]).toEqual([429, '7', '7000']);
    const ok = await post('/chat/completions', body);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      model: 'm',
      choices: [{ message: { content: 'Thanks for your message! You said: "hello"' } }],
    });
    expect(fake.requests.map((r) => r.authorized)).toEqual([true, true, true]);
  });

  it('answers 401 to a wrong key (without consuming the script), 400 to a bad body, 404 elsewhere', async () => {
    fake.reset();
    fake.script(1, { kind: 'server_error' });
    expect((await post('/chat/completions', { model: 'm', messages: [] }, 'sk-other')).status).toBe(401);
    expect((await post('/chat/completions', { messages: [] })).status).toBe(400);
    expect((await post('/embeddings', {})).status).toBe(404);
    expect((await post('/chat/completions', { model: 'm', messages: [] })).status).toBe(500);
    expect(fake.requests.map((r) => [r.path, r.authorized])).toEqual([
      ['/v1/chat/completions', false],
      ['/v1/chat/completions', true],
      ['/v1/embeddings', true],
      ['/v1/chat/completions', true],
    ]);
  });
});
