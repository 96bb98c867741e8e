import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExtraGateway, type ExtraGateway } from '../support/extra-gateway';
import { createTestOrg, type TestOrg } from '../support/orgs';

// One gateway with small limits, so that the test sends little and waits little.
const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_500;
const BODY_LIMIT_BYTES = 32_768; // room for 10,000 levels of `[`
const ALLOWED_ORIGIN = 'https://allowed.example';

let gateway: ExtraGateway;
let org: TestOrg;
beforeAll(async () => {
  gateway = await startExtraGateway('gateway-request-limits', {
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
    CORS_ALLOWED_ORIGINS: `${ALLOWED_ORIGIN}, https://other.example`,
  });
  org = await createTestOrg();
}, 120_000);
afterAll(async () => {
  await gateway.stop();
});

interface Answer {
  status: number;
  headers: Headers;
  body: { error?: { type: string; code: string; message: string }; meta?: { request_id: string } };
}
async function call(path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`${gateway.baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Answer['body']) : {} };
}
const expectEnvelope = (answer: Answer, status: number, code: string) => {
  expect(answer.status).toBe(status);
  expect(answer.body.error?.code).toBe(code);
  expect(answer.body.meta?.request_id).toMatch(/^req_/);
};
const healthy = async () => expect((await fetch(`${gateway.baseUrl}/healthz`)).status).toBe(200);

/** A raw connection: what was received, and when the server closed it. */
function rawConnection(): { socket: Socket; received: () => string; closed: Promise<number> } {
  const socket = connect(gateway.port, '127.0.0.1');
  let data = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (data += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((done) => socket.on('close', () => done(Date.now())));
  return { socket, received: () => data, closed };
}

/** Writes `text` one byte at a time, `intervalMs` apart, until the socket closes. */
async function trickle(socket: Socket, text: string, intervalMs: number): Promise<void> {
  for (const char of text) {
    if (socket.destroyed || !socket.writable) return;
    socket.write(char);
    await new Promise((done) => setTimeout(done, intervalMs));
  }
}

describe('request size limits answer in the envelope', () => {
  it('a body over BODY_LIMIT_BYTES: 413 PAYLOAD_TOO_LARGE', async () => {
    const answer = await call('/v1/companies', { method: 'POST', body: JSON.stringify({ name: 'x'.repeat(BODY_LIMIT_BYTES) }) });
    expectEnvelope(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(answer.body.error?.type).toBe('invalid_request');
  });

  it('a query string over 4,096 characters or 50 parameters: 414 URI_TOO_LONG', async () => {
    expectEnvelope(await call(`/v1/companies?q=${'a'.repeat(4_100)}`), 414, 'URI_TOO_LONG');
    const many = Array.from({ length: 51 }, (_, index) => `p${index}=1`).join('&');
    expectEnvelope(await call(`/v1/companies?${many}`), 414, 'URI_TOO_LONG');
    expect((await call('/v1/companies?limit=5')).status).toBe(200);
  });

  it('page limits: above 100 is clamped, below 1 refused', async () => {
    expect((await call('/v1/companies?limit=1000')).status).toBe(200);
    expectEnvelope(await call('/v1/companies?limit=0'), 422, 'VALIDATION_ERROR');
  });

  it('headers over 16 KiB: 431 HEADERS_TOO_LARGE in the envelope, and the gateway goes on', async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/companies`, {
      headers: { authorization: `Bearer ${org.key}`, 'x-padding': 'p'.repeat(20_000) },
    });
    expect(response.status).toBe(431);
    const body = (await response.json()) as Answer['body'];
    expect(body.error).toMatchObject({ code: 'HEADERS_TOO_LARGE' });
    expect(response.headers.get('x-request-id')).toBe(body.meta?.request_id);
    await healthy();
  });

  it('10,000 levels of nested JSON: 400 INVALID_JSON at once, and the gateway goes on', async () => {
    for (const body of [
      '['.repeat(10_000) + ']'.repeat(10_000),
      `{"name":"deep","custom_fields":{"a":${'['.repeat(2_000)}${']'.repeat(2_000)}}}`,
    ]) {
      const started = Date.now();
      const answer = await call('/v1/companies', { method: 'POST', body });
      expectEnvelope(answer, 400, 'INVALID_JSON');
      expect(Date.now() - started).toBeLessThan(2_000);
    }
    await healthy();
  });
});

describe('slow clients are cut off and do not hold others up', () => {
  it(
    'headers sent a byte at a time (slowloris): 408 REQUEST_TIMEOUT and closed after the headers timeout',
    { timeout: 20_000 },
    async () => {
      const slow = rawConnection();
      const started = Date.now();
      void trickle(
        slow.socket,
        `GET /v1/companies HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.key}\r\nX-Slow: ${'s'.repeat(200)}\r\n\r\n`,
        100,
      );
      // Meanwhile another client is served at once.
      const other = Date.now();
      expect((await call('/v1/companies')).status).toBe(200);
      expect(Date.now() - other).toBeLessThan(HEADERS_TIMEOUT_MS);

      const closedAt = await slow.closed;
      expect(closedAt - started).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
      expect(closedAt - started).toBeLessThan(HEADERS_TIMEOUT_MS + 3_000);
      expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(slow.received()).toContain('"code":"REQUEST_TIMEOUT"');
    },
  );

  it('a body sent a byte at a time: closed after the request timeout', { timeout: 20_000 }, async () => {
    const slow = rawConnection();
    const body = JSON.stringify({ name: 'n'.repeat(200) });
    const started = Date.now();
    slow.socket.write(
      `POST /v1/companies HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    void trickle(slow.socket, body, 100);
    const closedAt = await slow.closed;
    expect(closedAt - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(closedAt - started).toBeLessThan(REQUEST_TIMEOUT_MS + 3_000);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    await healthy();
  });
});

describe('CORS with a list of origins', () => {
  const preflight = (origin: string) =>
    fetch(`${gateway.baseUrl}/v1/companies`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });

  it('echoes an allowed origin (with Vary: Origin) and gives a disallowed one no CORS headers', async () => {
    const allowed = await preflight(ALLOWED_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    expect(allowed.headers.get('vary')).toContain('Origin');

    const denied = await preflight('https://evil.example');
    expect(denied.headers.get('access-control-allow-origin')).toBeNull();
    expect(denied.headers.get('access-control-allow-methods')).toBeNull();

    const actual = await call('/v1/companies', { headers: { origin: 'https://evil.example' } });
    expect(actual.status).toBe(200);
    expect(actual.headers.get('access-control-allow-origin')).toBeNull();
  });
});
