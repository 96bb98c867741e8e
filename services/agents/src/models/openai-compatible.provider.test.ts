import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '@crm/dev-tools/fake-openai';
import { HANDOFF_PROTOCOL } from './handoff-protocol';
import { ModelError } from './model-error';
import type { ChatTurn, ModelRequest } from './model-provider';
import { OpenAiCompatibleProvider, type OpenAiCompatibleOptions } from './openai-compatible.provider';

const KEY = 'sk-test-0123456789abcdefSECRET';
let fake: FakeOpenAiServer;
let waits: number[];

beforeAll(async () => {
  fake = await startFakeOpenAiServer({ apiKey: KEY });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  waits = [];
});

/** A provider whose waits are recorded, not spent, unless a test asks for the real sleep. */
function providerFor(overrides: Partial<OpenAiCompatibleOptions> = {}): OpenAiCompatibleProvider {
  return new OpenAiCompatibleProvider({
    baseUrl: fake.baseUrl,
    apiKey: KEY,
    model: 'gpt-fake-mini',
    timeoutMs: 2_000,
    retries: 2,
    backoff: { baseMs: 10, maxMs: 100, random: () => 0.5 },
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...overrides,
  });
}

const user = (content: string): ChatTurn => ({ role: 'user', content });
const request = (history: ChatTurn[], overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: '',
  instructions: 'You are the assistant of Acme.',
  history,
  temperature: 0.2,
  ...overrides,
});

async function failureOf(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe('OpenAiCompatibleProvider against the fake server', () => {
  it('sends the instructions, the handoff protocol and the history, and returns the answer with its usage', async () => {
    const history = [user('Hello'), { role: 'assistant' as const, content: 'Hi!' }, user('What are your prices?')];
    const reply = await providerFor().complete(request(history, { contactName: 'Ana' }));

    expect(reply.content).toBe('Thanks for your message! You said: "What are your prices?"');
    expect(reply.handoff).toBeNull();
    expect(reply.model).toBe('gpt-fake-mini');
    expect(reply.usage.prompt_tokens).toBeGreaterThan(0);
    expect(reply.usage.total_tokens).toBe(reply.usage.prompt_tokens + reply.usage.completion_tokens);

    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0];
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/chat/completions', authorized: true });
    expect(sent?.body).toMatchObject({ model: 'gpt-fake-mini', temperature: 0.2 });
    const [system, ...rest] = sent?.body?.messages ?? [];
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('You are the assistant of Acme.');
    expect(system?.content).toContain("The contact's name is Ana.");
    expect(system?.content).toContain(HANDOFF_PROTOCOL);
    expect(rest).toEqual(history);
  });

  it("uses the agent's model over the default", async () => {
    const reply = await providerFor().complete(request([user('hi')], { model: 'gpt-agent-choice' }));
    expect(reply.model).toBe('gpt-agent-choice');
    expect(fake.requests[0]?.body?.model).toBe('gpt-agent-choice');
  });

  it('estimates the usage when the answer has none', async () => {
    fake.script(1, { kind: 'no_usage' });
    const reply = await providerFor().complete(request([user('hi')]));
    expect(reply.usage.prompt_tokens).toBeGreaterThan(0);
    expect(reply.usage.completion_tokens).toBeGreaterThan(0);
  });

  it('parses the handoff answer', async () => {
    const reply = await providerFor().complete(request([user('I need a HUMAN, now')]));
    expect(reply).toMatchObject({
      content: '',
      handoff: { reason: 'The contact asked for a human', summary: 'The contact wrote: "I need a HUMAN, now"' },
    });
  });

  it('retries after a 429, waiting at least what Retry-After asks', async () => {
    fake.script(1, { kind: 'rate_limit', retryAfterMs: 300 });
    const reply = await providerFor().complete(request([user('hi')]));
    expect(reply.content).toContain('You said: "hi"');
    expect(fake.requests).toHaveLength(2);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(300);
  });

  it('retries for real with backoff (no injected sleep)', async () => {
    fake.script(1, { kind: 'rate_limit', retryAfterSeconds: 0 });
    fake.script(1, { kind: 'server_error', status: 503 });
    const reply = await providerFor({ sleep: undefined }).complete(request([user('hi')]));
    expect(reply.content).toContain('You said: "hi"');
    expect(fake.requests).toHaveLength(3);
  });

  it('gives up at once on a Retry-After longer than it is willing to wait', async () => {
    fake.script(1, { kind: 'rate_limit', retryAfterSeconds: 3600 });
    const error = await failureOf(providerFor({ maxRetryAfterMs: 1_000 }).complete(request([user('hi')])));
    expect(error).toMatchObject({ code: 'model_rate_limited', status: 429, attempts: 1 });
    expect(fake.requests).toHaveLength(1);
  });

  it('answers model_rate_limited when every attempt is rate limited', async () => {
    fake.script(3, { kind: 'rate_limit', retryAfterMs: 1 });
    const error = await failureOf(providerFor().complete(request([user('hi')])));
    expect(error).toMatchObject({ code: 'model_rate_limited', status: 429, attempts: 3 });
  });

  it('answers model_unavailable after exhausting its retries on 500, with growing waits', async () => {
    fake.script(3, { kind: 'server_error' });
    const error = await failureOf(providerFor().complete(request([user('hi')])));
    expect(error).toMatchObject({ code: 'model_unavailable', status: 500, attempts: 3 });
    expect(error.message).toMatch(/HTTP 500.*after 3 attempts/);
    expect(fake.requests).toHaveLength(3);
    expect(waits).toEqual([8, 15]);
  });

  it('times out each attempt, retries, and answers model_timeout when all of them hang', async () => {
    fake.script(2, { kind: 'hang' });
    const error = await failureOf(providerFor({ timeoutMs: 100, retries: 1 }).complete(request([user('hi')])));
    expect(error).toMatchObject({ code: 'model_timeout', status: null, attempts: 2 });
    expect(fake.requests).toHaveLength(2);
  });

  it('recovers when only the first attempt hangs', async () => {
    fake.script(1, { kind: 'hang' });
    const reply = await providerFor({ timeoutMs: 100 }).complete(request([user('hi')]));
    expect(reply.content).toContain('You said: "hi"');
  });

  it("stops at the caller's deadline or cancellation without retrying", async () => {
    fake.script(5, { kind: 'hang' });
    const provider = providerFor({ timeoutMs: 5_000, retries: 3 });
    const late = await failureOf(provider.complete(request([user('hi')], { signal: AbortSignal.timeout(100) })));
    expect(late).toMatchObject({ code: 'model_timeout' });
    // Cancelled once the server holds the request (not after a fixed time, which a loaded machine may not reach).
    const sent = fake.requests.length;
    const controller = new AbortController();
    const whenSent = setInterval(() => fake.requests.length > sent && controller.abort(), 5);
    const cancelled = await failureOf(provider.complete(request([user('hi')], { signal: controller.signal })));
    clearInterval(whenSent);
    expect(cancelled).toMatchObject({ code: 'model_cancelled' });
    // No retry after either: at most one request per call, however long the retry backoff would have waited.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.requests.length).toBe(sent + 1);
    expect(sent).toBeLessThanOrEqual(1);
  });

  it('answers model_refused on 401 without retrying and without the key anywhere', async () => {
    const wrongKey = `${KEY}-wrong`;
    const provider = providerFor({ apiKey: wrongKey });
    const error = await failureOf(provider.complete(request([user('hi')])));
    expect(error).toMatchObject({ code: 'model_refused', status: 401, attempts: 1 });
    expect(error.message).toContain('Incorrect API key provided');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.authorized).toBe(false);
    for (const text of [
      error.message,
      String(error.stack),
      JSON.stringify(error),
      inspect(error),
      inspect(provider),
      JSON.stringify(provider),
    ]) {
      expect(text).not.toContain(wrongKey);
      expect(text).not.toContain('0123456789abcdef');
    }
  });

  it('answers model_bad_response to a body that is not a completion, without retrying', async () => {
    fake.script(1, { kind: 'malformed' });
    const error = await failureOf(providerFor().complete(request([user('hi')])));
    expect(error).toMatchObject({ code: 'model_bad_response', status: 200, attempts: 1 });
  });

  it('answers model_unavailable when nothing listens, after retrying', async () => {
    const closed = await startFakeOpenAiServer({ apiKey: KEY });
    const baseUrl = closed.baseUrl;
    await closed.close();
    const error = await failureOf(providerFor({ baseUrl }).complete(request([user('hi')])));
    expect(error).toMatchObject({ code: 'model_unavailable', status: null, attempts: 3 });
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('sends a bounded history, newest turns kept', async () => {
    const history = Array.from({ length: 50 }, (_, i) => user(`message ${i} ${'x'.repeat(500)}`));
    await providerFor().complete(request(history));
    const sent = fake.requests[0]?.body?.messages ?? [];
    const turns = sent.slice(1);
    expect(turns.length).toBeLessThanOrEqual(20);
    expect(turns.reduce((sum, turn) => sum + turn.content.length, 0)).toBeLessThanOrEqual(8000);
    expect(turns.at(-1)?.content).toMatch(/^message 49 /);
    expect(sent.some((turn) => turn.content.startsWith('message 0 '))).toBe(false);
  });

  it('keeps nothing from one call to the next: one organization never sees another one’s text', async () => {
    const provider = providerFor();
    await provider.complete(
      request([user('ORG-A secret: the launch is on Friday')], { instructions: 'Agent of org A', contactName: 'Alice' }),
    );
    await provider.complete(request([user('ORG-B question')], { instructions: 'Agent of org B', contactName: 'Bob' }));
    const second = JSON.stringify(fake.requests[1]?.body);
    expect(second).toContain('ORG-B question');
    expect(second).not.toMatch(/ORG-A|org A|Alice/);
  });
});
