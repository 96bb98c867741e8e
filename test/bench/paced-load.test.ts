import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runPacedLoad } from './paced-load';

/** A server answering 200 at once, except its first request, which it holds for `holdMs`. */
async function serverHoldingFirst(holdMs: number): Promise<{ server: Server; baseUrl: string }> {
  let seen = 0;
  const server = createServer((_request, response) => {
    const answer = () => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (seen++ === 0) setTimeout(answer, holdMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let open: Server | undefined;
afterEach(() => open?.close());

describe('paced open-loop load', () => {
  it('sends every request due whatever the answers do, and times each from when it was due', async () => {
    const { server, baseUrl } = await serverHoldingFirst(300);
    open = server;
    // 20 requests due every 50 ms on one connection: those due while the first is held wait behind it.
    const result = await runPacedLoad({ baseUrl, request: { method: 'GET', path: '/' }, clients: 1, seconds: 1, rate: 20 });
    expect(result.requests).toBe(20);
    expect(result.statuses).toEqual({ 200: 20 });
    // The requests due at 50, 100 and 150 ms are answered after 300 ms: at least 250, 200 and 150 ms from when they
    // were due. Timed from their send instead (autocannon), they would take a millisecond.
    expect(result.max_ms).toBeGreaterThanOrEqual(300);
    expect(result.p90_ms).toBeGreaterThanOrEqual(150);
  });

  it('reports the p99 of the answers due past the first second apart from a stall at the start', async () => {
    const { server, baseUrl } = await serverHoldingFirst(600);
    open = server;
    const result = await runPacedLoad({ baseUrl, request: { method: 'GET', path: '/' }, clients: 1, seconds: 2, rate: 20 });
    // Those due in the first 600 ms waited behind the held one; none due after a second did.
    expect(result.p99_ms).toBeGreaterThanOrEqual(400);
    expect(result.p99_after_first_second_ms).toBeLessThan(300);
    expect(result.slowest?.[0]).toMatchObject({ due_ms: 0 });
  });
});
