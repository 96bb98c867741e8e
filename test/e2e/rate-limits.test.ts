import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExtraGateway, type ExtraGateway } from '../support/extra-gateway';
import { createTestOrg } from '../support/orgs';

// Two gateway replicas with limits on, sharing the counters in the gateway database. A 5-second window makes the
// test independent of how fast this machine sends a burst: a burst sent at the start of a window ends inside it.
const WINDOW_SECONDS = 5;
const KEY_PER_SECOND = 2; // 10 per window
const ORG_PER_SECOND = 3; // 15 per window
const KEY_QUOTA = KEY_PER_SECOND * WINDOW_SECONDS;
const ORG_QUOTA = ORG_PER_SECOND * WINDOW_SECONDS;

let replicas: ExtraGateway[] = [];
beforeAll(async () => {
  const env = {
    RATE_LIMIT_PER_SECOND: String(KEY_PER_SECOND),
    RATE_LIMIT_ORG_PER_SECOND: String(ORG_PER_SECOND),
    RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    // What is measured here is the sharing; a slow answer of this busy machine's store must not fail open.
    RATE_LIMIT_STORE_TIMEOUT_MS: '10000',
  };
  replicas = await Promise.all([startExtraGateway('gateway-limits-a', env), startExtraGateway('gateway-limits-b', env)]);
}, 120_000);
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
});

interface Answer {
  status: number;
  headers: Headers;
  body: { error?: { type: string; code: string; details?: Record<string, unknown> }; meta?: { request_id: string } };
}

async function get(baseUrl: string, key: string, path = '/v1/companies'): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Answer['body'] };
}

/** Waits until a new window has just begun, so that a quick burst falls inside one window. */
async function startOfWindow(): Promise<void> {
  const windowMs = WINDOW_SECONDS * 1000;
  await new Promise((done) => setTimeout(done, windowMs - (Date.now() % windowMs) + 20));
}

/** `count` requests with `key` to one replica, all in flight at once. */
const burst = (replica: number, key: string, count: number): Promise<Answer[]> =>
  Promise.all(Array.from({ length: count }, () => get(replicas[replica]!.baseUrl, key)));

const withStatus = (answers: Answer[], status: number): Answer[] => answers.filter((answer) => answer.status === status);

describe('rate limits shared by the gateway replicas', () => {
  it(
    'admits one key its quota once across two replicas, then answers 429 in the envelope with the headers',
    { timeout: 60_000 },
    async () => {
      const org = await createTestOrg();
      await startOfWindow();
      // Three bursts, one replica at a time, so that which replica reaches the shared count first is decided by the
      // test, not by timing: each replica counting alone would admit every request of the second and third bursts.
      const half = KEY_QUOTA / 2;
      const first = await burst(0, org.key, half);
      const second = await burst(1, org.key, KEY_QUOTA);
      const third = await burst(0, org.key, KEY_QUOTA);
      expect(withStatus(first, 200)).toHaveLength(half);
      expect(withStatus(second, 200)).toHaveLength(half);
      expect(withStatus(second, 429)).toHaveLength(KEY_QUOTA - half);
      expect(withStatus(third, 429)).toHaveLength(KEY_QUOTA);
      const answers = [...first, ...second, ...third];
      const admitted = withStatus(answers, 200);
      const refused = withStatus(answers, 429);
      expect(admitted).toHaveLength(KEY_QUOTA);

      const one = refused[0]!;
      expect(one.body.error).toMatchObject({ type: 'rate_limited', code: 'RATE_LIMITED', details: { policy: 'key', limit: KEY_QUOTA } });
      expect(one.body.meta?.request_id).toMatch(/^req_/);
      const retryAfter = Number(one.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
      expect(one.headers.get('ratelimit-policy')).toBe(
        `"key";q=${KEY_QUOTA};w=${WINDOW_SECONDS}, "org";q=${ORG_QUOTA};w=${WINDOW_SECONDS}`,
      );
      expect(one.headers.get('ratelimit')).toBe(`"key";r=0;t=${retryAfter}`);
      // Admitted answers carry them too, with what is left.
      const remaining = admitted.map((answer) => answer.headers.get('ratelimit'));
      expect(remaining).toContain(`"key";r=0;t=${retryAfter}`);
      expect(admitted.every((answer) => /^"key";r=\d+;t=\d+$/.test(answer.headers.get('ratelimit') ?? ''))).toBe(true);

      // After Retry-After the key is admitted again.
      await new Promise((done) => setTimeout(done, retryAfter * 1000 + 100));
      const again = await get(replicas[1]!.baseUrl, org.key);
      expect(again.status).toBe(200);
      expect(again.headers.get('ratelimit')).toMatch(new RegExp(`^"key";r=${KEY_QUOTA - 1};t=\\d+$`));
    },
  );

  it('limits an organization across its keys, and leaves other organizations alone', { timeout: 60_000 }, async () => {
    const org = await createTestOrg();
    const second = await org.keyWith(['read:companies']);
    const other = await createTestOrg();
    await startOfWindow();
    const first = await burst(0, org.key, KEY_QUOTA);
    expect(withStatus(first, 200)).toHaveLength(KEY_QUOTA);

    // The second key has its own KEY_QUOTA, but the organization only ORG_QUOTA - KEY_QUOTA left.
    const answers = await burst(1, second.key, KEY_QUOTA);
    expect(withStatus(answers, 200)).toHaveLength(ORG_QUOTA - KEY_QUOTA);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { policy: 'org', limit: ORG_QUOTA } });
    expect(refused.headers.get('ratelimit')).toMatch(/^"org";r=0;t=\d+$/);

    const unaffected = await get(replicas[0]!.baseUrl, other.key);
    expect(unaffected.status).toBe(200);
    expect(unaffected.headers.get('ratelimit')).toMatch(new RegExp(`^"key";r=${KEY_QUOTA - 1};t=\\d+$`));
  });
});
