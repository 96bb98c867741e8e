import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { limitInflight } from './inflight-limit';

/** A process with a cap of 2 whose /slow answers when the test releases it. */
function appWithCap() {
  const app = Fastify();
  limitInflight(app, 2);
  const waiting: Array<() => void> = [];
  app.get('/slow', () => new Promise((resolve) => waiting.push(() => resolve({ ok: true }))));
  app.get('/healthz', async () => ({ status: 'ok' }));
  const release = () => waiting.splice(0).forEach((answer) => answer());
  const arrived = async (count: number) => {
    while (waiting.length < count) await new Promise((resolve) => setImmediate(resolve));
  };
  return { app, release, arrived };
}

describe('in-flight cap', () => {
  it('refuses the request over the cap at once with 503 and Retry-After: 1, then serves again once one ends', async () => {
    const { app, release, arrived } = appWithCap();
    const first = app.inject('/slow');
    const second = app.inject('/slow');
    await arrived(2);
    const third = await app.inject('/slow');
    expect(third.statusCode).toBe(503);
    expect(third.headers['retry-after']).toBe('1');
    expect(third.json()).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', type: 'unavailable' } });
    // Probes still answer while the API is at capacity.
    expect((await app.inject('/healthz')).statusCode).toBe(200);

    release();
    expect([(await first).statusCode, (await second).statusCode]).toEqual([200, 200]);
    const fourth = app.inject('/slow');
    await arrived(1);
    release();
    expect((await fourth).statusCode).toBe(200);
    await app.close();
  });
});
