import Fastify from 'fastify';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { GracefulShutdown } from './graceful-shutdown';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A bare Fastify with the shutdown installed, a slow route to keep a request in flight, and a listener. */
async function server(drainMs: number) {
  const shutdown = new GracefulShutdown(drainMs);
  const app = Fastify({ return503OnClosing: false });
  shutdown.install(app);
  app.get('/fast', async () => ({ ok: true }));
  let started: () => void = () => undefined;
  const slowStarted = new Promise<void>((resolve) => (started = resolve));
  app.get('/slow', async () => {
    started();
    await sleep(1_000);
    return { ok: 'slow' };
  });
  app.get('/readyz', async (_request, reply) => reply.code(shutdown.ready ? 200 : 503).send({}));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, shutdown, url, slowStarted };
}

describe('GracefulShutdown', () => {
  it('fails readiness and keeps serving while it drains, answering with Connection: close', { timeout: 20_000 }, async () => {
    // A drain long enough for two requests on a loaded machine (300 ms was not: the listener had closed before the second).
    const { app, shutdown, url } = await server(3_000);
    expect(shutdown.ready).toBe(true);
    const done = shutdown.run(app);
    expect(shutdown.ready).toBe(false);
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    const served = await fetch(`${url}/fast`);
    expect(served.status).toBe(200);
    expect(served.headers.get('connection')).toBe('close');
    await done;
  });

  it('finishes the request in flight when it closes, refuses new connections, and answers late requests in the envelope', async () => {
    const { app, shutdown, url, slowStarted } = await server(50);
    // One keep-alive connection, busy with the slow request across the start of the close (so it is not idle).
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await slowStarted;
    const done = shutdown.run(app);
    // Closing once new connections are refused; then a request on the open connection is refused in the envelope.
    while (
      await fetch(`${url}/fast`).then(
        () => true,
        () => false,
      )
    )
      await sleep(20);
    socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
    await closed;
    await done;
    const [slow, late] = received.split(/(?=HTTP\/1\.1 )/);
    expect(slow).toMatch(/^HTTP\/1\.1 200 /);
    expect(slow).toContain('{"ok":"slow"}');
    expect(late).toMatch(/^HTTP\/1\.1 503 /);
    expect(late).toMatch(/retry-after: 1/i);
    expect(late).toMatch(/connection: close/i);
    expect(late).toContain('"code":"SERVICE_UNAVAILABLE"');
  });
});
