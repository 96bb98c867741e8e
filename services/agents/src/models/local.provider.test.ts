import { describe, expect, it } from 'vitest';
import { GENERIC_ANSWER, LOCAL_MODEL, LocalProvider, render } from './local.provider';
import { ModelError } from './model-error';
import type { ChatTurn, ModelRequest } from './model-provider';

const INSTRUCTIONS = [
  'You are the assistant of Acme. Be brief.',
  'When the customer mentions price, prices, cost: Our plans start at $10/month.',
  'When the customer mentions cost, refund: Refunds take 5 days.',
  'Greeting: Hi {first_name}! How can I help?',
  'Fallback: A colleague will get back to you.',
  'Handoff when: human, agent, talk to someone',
  'Simulate failure when kaboom: The model exploded.',
].join('\n');

const provider = new LocalProvider();
const user = (content: string): ChatTurn => ({ role: 'user', content });
const assistant = (content: string): ChatTurn => ({ role: 'assistant', content });
const ask = (history: ChatTurn[], overrides: Partial<ModelRequest> = {}) =>
  provider.complete({ model: '', instructions: INSTRUCTIONS, history, temperature: 0.3, contactName: 'Ana Souza', ...overrides });

describe('LocalProvider', () => {
  it('answers with the first rule whose keyword is in the last user message', async () => {
    const reply = await ask([user('Hello'), assistant('Hi!'), user('What does it COST per month?')]);
    expect(reply).toMatchObject({ content: 'Our plans start at $10/month.', model: LOCAL_MODEL, handoff: null });
    expect((await ask([user('I want a refund')])).content).toBe('Refunds take 5 days.');
  });

  it('only reads the last user message', async () => {
    const reply = await ask([user('price?'), assistant('Our plans start at $10/month.'), user('ok thanks')]);
    expect(reply.content).toBe('A colleague will get back to you.');
  });

  it('greets by first name before anybody answered, then falls back', async () => {
    expect((await ask([user('hello there')])).content).toBe('Hi Ana! How can I help?');
    expect((await ask([user('hello there')], { contactName: null })).content).toBe('Hi! How can I help?');
    expect((await ask([user('hello'), assistant('Hi!'), user('hmm')])).content).toBe('A colleague will get back to you.');
  });

  it('answers generically without rules, mentioning it will get back', async () => {
    const reply = await ask([user('anything')], { instructions: 'You are a helpful assistant.' });
    expect(reply.content).toBe(GENERIC_ANSWER);
    expect(reply.content).toMatch(/get back to you/);
  });

  it('hands off on a handoff keyword, before any answer rule, with a reason and a summary', async () => {
    const reply = await ask([user('hi'), assistant('Hello!'), user('The price is wrong, I want to talk  to someone now')]);
    expect(reply.content).toBe('');
    expect(reply.handoff).toEqual({
      reason: 'The contact mentioned "talk to someone".',
      summary:
        'Last message from the contact: "The price is wrong, I want to talk  to someone now" (2 messages from the contact in the history).',
    });
  });

  it('sends the handoff reply when the instructions give one', async () => {
    const reply = await ask([user('a human please')], { instructions: `${INSTRUCTIONS}\nHandoff reply: One moment {first_name}.` });
    expect(reply.content).toBe('One moment Ana.');
    expect(reply.handoff?.reason).toBe('The contact mentioned "human".');
  });

  it('is deterministic and reports estimated usage that is never zero', async () => {
    const history = [user('What are your prices?')];
    const first = await ask(history);
    expect(await ask(history)).toEqual(first);
    const promptChars = INSTRUCTIONS.length + 'What are your prices?'.length;
    expect(first.usage).toEqual({
      prompt_tokens: Math.ceil(promptChars / 4),
      completion_tokens: Math.ceil('Our plans start at $10/month.'.length / 4),
      total_tokens: Math.ceil(promptChars / 4) + Math.ceil('Our plans start at $10/month.'.length / 4),
    });
    const empty = await provider.complete({ model: '', instructions: '', history: [], temperature: 0 });
    expect(empty.usage.prompt_tokens).toBeGreaterThan(0);
    expect(empty.content).toBe(GENERIC_ANSWER);
  });

  it('reports its own model whatever model the agent names', async () => {
    expect((await ask([user('hi')], { model: 'gpt-4o' })).model).toBe(LOCAL_MODEL);
  });

  it('simulates a failure when told to, always or on a keyword', async () => {
    const always = ask([user('hi')], { instructions: 'Simulate failure: Provider down for the test.' });
    await expect(always).rejects.toBeInstanceOf(ModelError);
    await expect(always).rejects.toMatchObject({ code: 'model_unavailable', message: 'Provider down for the test.', status: null });
    await expect(ask([user('say KABOOM')])).rejects.toMatchObject({ code: 'model_unavailable', message: 'The model exploded.' });
    expect((await ask([user('say boom')])).content).toBe('Hi Ana! How can I help?');
  });

  it('does not answer once the caller aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(ask([user('hi')], { signal: controller.signal })).rejects.toMatchObject({ code: 'model_cancelled' });
    const deadline = AbortSignal.timeout(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(ask([user('hi')], { signal: deadline })).rejects.toMatchObject({ code: 'model_timeout' });
  });
});

describe('render', () => {
  it('fills {first_name} and {name}, and drops them cleanly when the name is unknown', () => {
    expect(render('Hello {name}, welcome', '  Ana   Maria  Souza ')).toBe('Hello Ana Maria Souza, welcome');
    expect(render('{first_name}, welcome', 'Ana Souza')).toBe('Ana, welcome');
    expect(render('{first_name}, welcome', null)).toBe('welcome');
    expect(render('Thanks {FIRST_NAME}.', undefined)).toBe('Thanks.');
  });
});
