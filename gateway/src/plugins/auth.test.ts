import { AppError } from '@crm/shared/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAuthenticator } from './auth';

const KEY = `sk_live_${'a'.repeat(40)}`;
const header = (key = KEY) => `Bearer ${key}`;

/** The CRM's key lookup, answering when the test says; the other keys are unknown. */
function accounts() {
  const pending: Array<() => void> = [];
  let calls = 0;
  const authenticate = vi.fn(async () => {
    calls += 1;
    await new Promise<void>((resolve) => pending.push(resolve));
    return { org_id: 'org_a', key_id: 'key_a', scopes: ['read:contacts'], plan: 'pro' };
  });
  return { accounts: { authenticate }, calls: () => calls, answer: () => pending.splice(0).forEach((resolve) => resolve()) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => vi.useRealTimers());

describe('authenticator', () => {
  it('looks a key up once for a burst of requests that arrive while it is being looked up', async () => {
    const crm = accounts();
    const authenticate = createAuthenticator(crm as never, 5_000);
    const burst = Array.from({ length: 100 }, () => authenticate(header()));
    await tick();
    expect(authenticate.peek(header())).toBeUndefined();
    crm.answer();
    const principals = await Promise.all(burst);
    expect(crm.calls()).toBe(1);
    expect(principals.every((principal) => principal.orgId === 'org_a')).toBe(true);
    // Verified: known without a lookup.
    expect(authenticate.peek(header())).toMatchObject({ orgId: 'org_a', plan: 'pro' });
    expect(authenticate.peek(header(`sk_live_${'b'.repeat(40)}`))).toBeUndefined();
    expect(authenticate.peek(undefined)).toBeUndefined();
    expect(authenticate.peek('Basic abc')).toBeUndefined();
  });

  it('refreshes a key in use in the second half of its time; after it expires, still names its organization to admission alone', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const crm = accounts();
    const authenticate = createAuthenticator(crm as never, 1_000);
    const first = authenticate(header());
    crm.answer();
    await first;
    vi.setSystemTime(Date.now() + 600);
    // Still accepted at once; a lookup starts in the background.
    expect(authenticate.peek(header())).toMatchObject({ orgId: 'org_a' });
    expect(crm.calls()).toBe(2);
    crm.answer();
    await tick();
    vi.setSystemTime(Date.now() + 900);
    // Renewed by that lookup: still known 1.5 s after the first one.
    expect(authenticate.peek(header())).toMatchObject({ orgId: 'org_a' });
    vi.setSystemTime(Date.now() + 2_000);
    // Expired: a request is verified again before it is served (it waits for the lookup)…
    const verified = authenticate(header());
    expect(crm.calls()).toBe(3);
    // …while admission still counts the key's requests against the organization it had.
    expect(authenticate.peek(header())).toMatchObject({ orgId: 'org_a' });
    expect(crm.calls()).toBe(3);
    crm.answer();
    await verified;
  });

  it('caches an unknown key as unknown: a repeated bad key costs one lookup', async () => {
    const authenticate = vi.fn(async () => {
      throw new AppError('INVALID_API_KEY');
    });
    const check = createAuthenticator({ accounts: { authenticate } } as never, 5_000);
    for (let i = 0; i < 3; i++) await expect(check(header())).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    expect(authenticate).toHaveBeenCalledTimes(1);
    expect(check.peek(header())).toBeUndefined();
    await expect(check(undefined)).rejects.toMatchObject({ code: 'MISSING_API_KEY' });
    await expect(check('Bearer nope')).rejects.toMatchObject({ code: 'INVALID_API_KEY_FORMAT' });
  });
});
