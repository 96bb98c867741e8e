import { AppError } from '@crm/shared/core';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { logLines, type LogLine } from '../../../test/support/log-lines';
import { handleError } from './error-handler';

/** A Fastify with the gateway's error handler, its log lines kept, and routes that fail once their client is gone or at once. */
async function server() {
  const { stream, lines } = logLines();
  const app = Fastify({ logger: { level: 'info', stream }, forceCloseConnections: true });
  app.setErrorHandler(handleError);
  let handled: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (handled = resolve));
  // What the bulkhead does with a waiting request whose client hangs up.
  app.get('/waits', (request) => {
    return new Promise((_resolve, reject) =>
      request.raw.socket.once('close', () => {
        reject(new AppError('SERVICE_UNAVAILABLE', 'The client closed the request while it waited.'));
        // The error handler runs once the rejection is seen, before the next turn.
        setImmediate(handled);
      }),
    );
  });
  app.get('/unavailable', async () => {
    throw new AppError('SERVICE_UNAVAILABLE', 'The backend is down.');
  });
  app.get('/bug', async () => {
    throw new TypeError('undefined is not a function');
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url, lines, answered };
}

const failures = (lines: LogLine[]) => lines.filter((line) => line.msg.startsWith('request failed'));

describe('handleError', () => {
  it('logs an unavailable answer whose client already hung up at info, not error', async () => {
    const { app, url, lines, answered } = await server();
    const gone = new AbortController();
    const request = fetch(`${url}/waits`, { signal: gone.signal }).catch(() => 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 100));
    gone.abort();
    expect(await request).toBe('aborted');
    await answered;
    expect(failures(lines)).toMatchObject([{ level: 30, msg: 'request failed after its client hung up' }]);
    await app.close();
  });

  it('logs an unavailable answer its client receives, and any unexpected error, at error', async () => {
    const { app, url, lines } = await server();
    const unavailable = await fetch(`${url}/unavailable`);
    expect(unavailable.status).toBe(503);
    expect(((await unavailable.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
    const bug = await fetch(`${url}/bug`);
    expect(bug.status).toBe(500);
    expect(await bug.text()).not.toContain('undefined is not a function');
    expect(failures(lines)).toMatchObject([
      { level: 50, msg: 'request failed', err: { message: 'The backend is down.' } },
      { level: 50, msg: 'request failed', err: { message: 'undefined is not a function' } },
    ]);
    await app.close();
  });
});
