import Fastify from 'fastify';
import { Agent, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectionPause, pauseRefusedConnections } from './refused-connection-pause';

/** A server whose / answers 429 with Retry-After: 1 while `refusing`, else 200; `received` counts what it has read. */
async function server(afterRefusals: number, random?: () => number) {
  const app = Fastify();
  pauseRefusedConnections(app, connectionPause({ afterRefusals, maxMs: 1_000, random }));
  const state = { refusing: true, received: 0 };
  app.get('/', async (_request, reply) => {
    state.received += 1;
    return state.refusing ? reply.code(429).header('Retry-After', '1').send({ refused: true }) : { ok: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  // One keep-alive connection: every request of the test on the same socket.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const request = () =>
    new Promise<number>((resolve, reject) =>
      get({ host: '127.0.0.1', port, agent, path: '/' }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      }).on('error', reject),
    );
  return { state, request, close: async () => (agent.destroy(), await app.close()) };
}

/** Event-loop turns, enough for a request on loopback to be read if the socket were read. */
const turns = async (count: number) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

afterEach(() => vi.useRealTimers());

describe('pausing a connection that keeps getting refused', () => {
  it('answers each refusal at once, then reads nothing more from that connection until its Retry-After has passed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const { state, request, close } = await server(3);
    // Two refusals in a row: not paused yet.
    expect([await request(), await request()]).toEqual([429, 429]);
    // The third is answered at once too; then the connection is paused.
    expect(await request()).toBe(429);
    const next = request();
    await turns(200);
    expect(state.received).toBe(3);
    // Never read before half its Retry-After (the pause is drawn between half and all of it)…
    vi.advanceTimersByTime(499);
    await turns(200);
    expect(state.received).toBe(3);
    // …and always by its end: the waiting request is read and served.
    state.refusing = false;
    vi.advanceTimersByTime(501);
    expect(await next).toBe(200);
    expect(state.received).toBe(4);
    await close();
  });

  it('spreads the connections it pauses together over the second half of their Retry-After', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    // Three connections refused in the same instant draw the earliest, a middle and the latest pause.
    const servers = [await server(1, () => 0), await server(1, () => 0.5), await server(1, () => 0.998)];
    for (const { request } of servers) expect(await request()).toBe(429);
    const waiting = servers.map(({ request }) => request());
    const readAt: number[] = [];
    for (let elapsed = 0; elapsed <= 1_000; elapsed += 10) {
      await turns(50);
      servers.forEach(({ state }, i) => {
        if (state.received === 2 && readAt[i] === undefined) readAt[i] = elapsed;
      });
      vi.advanceTimersByTime(10);
    }
    expect(readAt).toEqual([500, 750, 1_000]);
    // Each was read then, and answered (still refused: the test keeps refusing).
    expect(await Promise.all(waiting)).toEqual([429, 429, 429]);
    for (const { close } of servers) await close();
  });

  it('starts counting again after a success, so a client that is refused now and then is never paused', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const { state, request, close } = await server(2);
    for (let i = 0; i < 5; i++) {
      state.refusing = true;
      expect(await request()).toBe(429);
      state.refusing = false;
      expect(await request()).toBe(200);
    }
    expect(state.received).toBe(10);
    await close();
  });
});
