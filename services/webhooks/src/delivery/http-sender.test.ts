import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it, expect } from 'vitest';
import { parseAllowList, type Resolver } from './address-guard';
import { sendWebhook } from './http-sender';
import { signPayload } from './signing';

const LOOPBACK = parseAllowList('127.0.0.1');
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: Server[] = [];

/** Starts a real loopback receiver; `handler` runs after the request body has been read. */
async function startReceiver(handler: (req: Received, res: ServerResponse) => void): Promise<{ port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      handler(entry, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, received };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

function delivery(port: number, path = '/hook'): { url: string; body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ id: 'evt_1', type: 'contact.created', data: { name: 'Zoë' } });
  const headers = signPayload({ eventId: 'evt_1', body, timestampSeconds: 1_700_000_000, secrets: [SECRET] });
  return { url: `http://127.0.0.1:${port}${path}`, body, headers };
}

describe('sendWebhook', () => {
  it('POSTs the exact body and headers; 2xx is success', async () => {
    const { port, received } = await startReceiver((_req, res) => {
      res.writeHead(204).end();
    });
    const input = delivery(port, '/hook?tenant=1');
    const result = await sendWebhook({ ...input, allowList: LOOPBACK });

    expect(result).toMatchObject({
      ok: true,
      statusCode: 204,
      error: null,
      responseExcerpt: '',
      retryAfter: null,
      pauseSubscription: false,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/hook?tenant=1');
    expect(request?.body).toBe(input.body);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['content-length']).toBe(String(Buffer.byteLength(input.body)));
    expect(request?.headers['user-agent']).toBe('crm-webhooks/1');
    expect(request?.headers['x-webhook-signature']).toBe(input.headers['X-Webhook-Signature']);
    expect(request?.headers['webhook-signature']).toBe(input.headers['webhook-signature']);
    expect(request?.headers['webhook-id']).toBe('evt_1');
  });

  it('keeps connections alive across deliveries', async () => {
    const clientPorts = new Set<number>();
    const { port } = await startReceiver((_req, res) => {
      clientPorts.add(res.socket?.remotePort ?? 0);
      res.writeHead(200).end('ok');
    });
    for (let n = 0; n < 6; n++) expect(await sendWebhook({ ...delivery(port), allowList: LOOPBACK })).toMatchObject({ ok: true });
    expect(clientPorts.size).toBeLessThanOrEqual(2);
  });

  it('sends once more a request whose connection was closed unanswered', async () => {
    const { port, received } = await startReceiver((_req, res) => {
      if (received.length === 2) res.socket?.destroy();
      else res.writeHead(200).end('ok');
    });
    expect(await sendWebhook({ ...delivery(port), allowList: LOOPBACK })).toMatchObject({ ok: true });
    expect(await sendWebhook({ ...delivery(port), allowList: LOOPBACK })).toMatchObject({
      ok: true,
      statusCode: 200,
      responseExcerpt: 'ok',
    });
    expect(received).toHaveLength(3);
  });

  it('keeps a response excerpt', async () => {
    const { port } = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
    expect(await sendWebhook({ ...delivery(port), allowList: LOOPBACK })).toMatchObject({
      ok: true,
      statusCode: 200,
      responseExcerpt: 'thanks',
    });
  });

  it('treats 500 as a failure', async () => {
    const { port } = await startReceiver((_req, res) => {
      res.writeHead(500).end('boom');
    });
    expect(await sendWebhook({ ...delivery(port), allowList: LOOPBACK })).toMatchObject({
      ok: false,
      statusCode: 500,
      error: 'http_500',
      responseExcerpt: 'boom',
    });
  });

  it('returns Retry-After on 429/503 and flags 410 Gone', async () => {
    const { port } = await startReceiver((req, res) => {
      if (req.url === '/busy') res.writeHead(429, { 'retry-after': '120' }).end();
      else res.writeHead(410).end();
    });
    expect(await sendWebhook({ ...delivery(port, '/busy'), allowList: LOOPBACK })).toMatchObject({
      ok: false,
      error: 'http_429',
      retryAfter: '120',
      pauseSubscription: false,
    });
    expect(await sendWebhook({ ...delivery(port, '/gone'), allowList: LOOPBACK })).toMatchObject({
      ok: false,
      error: 'http_410',
      pauseSubscription: true,
    });
  });

  it('does not follow redirects: any 3xx is the failure redirect_refused, naming the Location', async () => {
    const { port, received } = await startReceiver((req, res) => {
      if (req.url === '/hook') res.writeHead(302, { location: '/elsewhere' }).end();
      else if (req.url === '/moved') res.writeHead(308, { location: 'http://169.254.169.254/latest/meta-data' }).end();
      else res.writeHead(200).end();
    });
    const result = await sendWebhook({ ...delivery(port), allowList: LOOPBACK });
    expect(result).toMatchObject({ ok: false, statusCode: 302, error: 'redirect_refused' });
    expect(result.errorDetail).toBe('302 to /elsewhere; redirects are never followed');
    const moved = await sendWebhook({ ...delivery(port, '/moved'), allowList: LOOPBACK });
    expect(moved).toMatchObject({ ok: false, statusCode: 308, error: 'redirect_refused' });
    expect(moved.errorDetail).toContain('308 to http://169.254.169.254/latest/meta-data');
    expect(received.map((r) => r.url)).toEqual(['/hook', '/moved']);
  });

  it('times out a receiver that never answers', async () => {
    const { port } = await startReceiver(() => {
      /* never respond */
    });
    const result = await sendWebhook({ ...delivery(port), allowList: LOOPBACK, timeoutMs: 200 });
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'timeout', responseExcerpt: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(190);
    expect(result.durationMs).toBeLessThan(1000);
  });

  it('times out while the response body is still trickling in (the whole exchange is bounded)', async () => {
    const { port } = await startReceiver((_req, res) => {
      res.writeHead(200);
      res.write('partial');
      // never ends
    });
    const result = await sendWebhook({ ...delivery(port), allowList: LOOPBACK, timeoutMs: 200 });
    expect(result).toMatchObject({ ok: false, statusCode: 200, error: 'timeout', responseExcerpt: 'partial' });
    expect(result.durationMs).toBeLessThan(1000);
  });

  it('caps a huge (endless) response body and keeps only the first 1 KB', async () => {
    let written = 0;
    const { port } = await startReceiver((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'a');
      const pump = (): void => {
        // Endless stream: only stopping at the read cap lets the send finish before the timeout.
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => undefined);
      pump();
    });
    const result = await sendWebhook({ ...delivery(port), allowList: LOOPBACK, timeoutMs: 5000 });
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(result.responseExcerpt).toBe('a'.repeat(1024));
    expect(result.durationMs).toBeLessThan(2000);
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });

  it('honours a custom excerpt size and drops a split multi-byte character', async () => {
    const { port } = await startReceiver((_req, res) => {
      res.writeHead(200).end('ab€cd'); // € is 3 bytes: bytes 3..5
    });
    expect(await sendWebhook({ ...delivery(port), allowList: LOOPBACK, maxExcerptBytes: 4 })).toMatchObject({ responseExcerpt: 'ab' });
  });

  it('reports connection refused as connection_error', async () => {
    const { port } = await startReceiver(() => undefined);
    const server = servers.pop();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    const result = await sendWebhook({ ...delivery(port), allowList: LOOPBACK, timeoutMs: 2000 });
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'connection_error', errorDetail: 'ECONNREFUSED' });
  });

  it('refuses loopback targets without an allow-list, without connecting', async () => {
    const { port, received } = await startReceiver((_req, res) => {
      res.writeHead(200).end();
    });
    const result = await sendWebhook({ ...delivery(port) });
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'blocked_address' });
    expect(result.errorDetail).toMatch(/https|loopback/);
    // Also over https (so the https rule is not what blocks it).
    expect(await sendWebhook({ ...delivery(port), url: `https://127.0.0.1:${port}/hook` })).toMatchObject({ error: 'blocked_address' });
    expect(received).toHaveLength(0);
  });

  it('connects to the vetted address while keeping the original Host header', async () => {
    const { port, received } = await startReceiver((_req, res) => {
      res.writeHead(200).end();
    });
    let lookups = 0;
    const resolver: Resolver = () => {
      lookups += 1;
      return Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    };
    const result = await sendWebhook({
      ...delivery(port),
      url: `http://receiver.test:${port}/hook`,
      allowList: parseAllowList('receiver.test'),
      resolver,
    });
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(received[0]?.headers.host).toBe(`receiver.test:${port}`);
    expect(lookups).toBe(1); // resolved once, no second lookup a rebinding DNS could answer differently
  });

  it('refuses a public-looking hostname that resolves to a blocked address (DNS rebinding)', async () => {
    const resolver: Resolver = () => Promise.resolve([{ address: '10.1.2.3', family: 4 }]);
    const result = await sendWebhook({ ...delivery(443), url: 'https://hooks.example.com/x', resolver });
    expect(result).toMatchObject({ ok: false, error: 'blocked_address' });
    expect(result.errorDetail).toContain('10.1.2.3');
  });

  it('reports an unresolvable host as connection_error and a slow DNS as timeout', async () => {
    const failing: Resolver = () => Promise.reject(new Error('ENOTFOUND'));
    expect(await sendWebhook({ ...delivery(443), url: 'https://nxdomain.example.com/', resolver: failing })).toMatchObject({
      ok: false,
      error: 'connection_error',
    });
    const hanging: Resolver = () => new Promise(() => undefined);
    const result = await sendWebhook({ ...delivery(443), url: 'https://slow-dns.example.com/', resolver: hanging, timeoutMs: 100 });
    expect(result).toMatchObject({ ok: false, error: 'timeout' });
  });

  it('does not let callers override framing headers', async () => {
    const { port, received } = await startReceiver((_req, res) => {
      res.writeHead(200).end();
    });
    const input = delivery(port);
    await sendWebhook({ ...input, headers: { ...input.headers, 'content-length': '1', Host: 'evil.example' }, allowList: LOOPBACK });
    expect(received[0]?.body).toBe(input.body);
    expect(received[0]?.headers.host).toBe(`127.0.0.1:${port}`);
  });
});
