import { AppError } from '@crm/shared';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerCall, retryAfterSeconds } from './http-call';

/** A provider on loopback whose answer each path scripts. */
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    if (request.url === '/stalls-body') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"messages": [');
      return;
    }
    if (request.url === '/unavailable') return void response.writeHead(503).end('down for maintenance');
    if (request.url === '/limited') return void response.writeHead(429, { 'retry-after': '7' }).end('{"error":"rate_limited"}');
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ id: 'wamid.1', seen: request.headers['idempotency-key'] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const call = (path: string, timeoutMs = 2_000) =>
  providerCall(`${base}${path}`, { method: 'POST', token: 't', body: { to: 'x' }, timeoutMs, idempotencyKey: 'key-1' });

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('the call was confirmed'),
    (error: unknown) => {
      expect(error).toBeInstanceOf(AppError);
      return error as AppError;
    },
  );

describe('a call to a provider', () => {
  it('answers the parsed body, carrying the idempotency key', async () => {
    const answer = await call('/ok');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ id: 'wamid.1', seen: 'key-1' });
  });

  it('is not confirmed when the answer stops in the middle of its body past the deadline', async () => {
    const error = await refusal(call('/stalls-body', 300));
    expect(error.code).toBe('TEMPLATE_NOT_CONFIRMED');
    expect(error.details).toMatchObject({ provider_code: 'timeout' });
  });

  it('is not confirmed on a 5xx, nor when nothing listens', async () => {
    const unavailable = await refusal(call('/unavailable'));
    expect(unavailable.details).toMatchObject({ provider_code: 'http_503', provider_message: 'down for maintenance' });
    const unreachable = await refusal(providerCall('http://127.0.0.1:1/x', { method: 'GET', token: 't', timeoutMs: 2_000 }));
    expect(unreachable.code).toBe('TEMPLATE_NOT_CONFIRMED');
    expect(unreachable.details).toMatchObject({ provider_code: 'connection_error' });
  });

  it("hands a refusal's Retry-After to the caller", async () => {
    const answer = await call('/limited');
    expect(answer.status).toBe(429);
    expect(retryAfterSeconds(answer.headers, 60)).toBe(7);
    expect(retryAfterSeconds({}, 60)).toBe(60);
  });
});
