import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { closeConnections, poolFor } from './connection-pool';

describe('connection pools per vetted target', () => {
  let server: Server;
  afterAll(async () => {
    await closeConnections();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('lets a request in flight finish when its pool is evicted as the least recently used', async () => {
    // A receiver that answers 300 ms after the request arrives.
    server = createServer((_req, res) => setTimeout(() => res.end('late but fine'), 300));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const target = { https: false, address: '127.0.0.1', port, hostname: 'receiver.example' };

    const inFlight = poolFor(target).request({ path: '/hook', method: 'POST', body: '{}' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // 1,000 other targets make the first the least recently used beyond the limit (no connection is opened).
    for (let n = 0; n < 1_000; n++) poolFor({ ...target, port: 10_000 + n });

    const response = await inFlight;
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('late but fine');
  });
});
