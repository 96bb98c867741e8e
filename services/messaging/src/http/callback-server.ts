import { INSTANCE_KINDS, type InstanceKind } from '@crm/shared/schemas';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { applyCallback, type CallbackOutcome } from '../domain/callbacks';
import type { MessagingDeps } from '../domain/deps';
import { CALLBACK_TIMESTAMP_HEADER, verifyCallback } from '@crm/shared';

export interface CallbackServerOptions {
  host: string;
  port: number;
  secret: string;
  /** How far a callback's signed timestamp may be from now (replay window), in seconds. */
  toleranceSeconds: number;
  /** Largest body read; the connection is answered 413 and closed as soon as more arrives. */
  maxBodyBytes: number;
  /** Slow clients: time to send the headers, and the whole request (Node answers 408 and closes). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

export interface CallbackServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * Receives provider callbacks at POST /callbacks/{qrcode|official|photoapp|socialmsg}. The signature is checked
 * on the raw bytes before anything is parsed. The answer is 200 once every callback of the body is applied, 425
 * when a status arrived before its send was stored (the provider retries), 401 on a bad signature or a timestamp
 * outside the replay window, 413 (and the connection closed) past the body limit.
 */
export async function startCallbackServer(deps: MessagingDeps, options: CallbackServerOptions): Promise<CallbackServer> {
  let accepting = true;
  const server: Server = createServer(
    { headersTimeout: options.headersTimeoutMs, requestTimeout: options.requestTimeoutMs },
    (request, response) => {
      void handle(deps, options, request, response, accepting).catch((error: unknown) => {
        deps.logger.error({ err: error }, 'provider callback failed');
        if (!response.headersSent) reply(response, 500, { error: 'internal_error' });
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    stop: () =>
      new Promise<void>((resolve) => {
        accepting = false;
        // Connections busy now turn idle once answered: close them as they do, not at the kill.
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

async function handle(
  deps: MessagingDeps,
  options: CallbackServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
  accepting: boolean,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (request.method === 'GET' && url.pathname === '/healthz')
    return reply(response, accepting ? 200 : 503, { status: accepting ? 'ok' : 'stopping' });
  const match = /^\/callbacks\/([a-z]+)$/.exec(url.pathname);
  const kind = INSTANCE_KINDS.find((candidate): candidate is InstanceKind => candidate === match?.[1]);
  if (request.method !== 'POST' || !kind) return reply(response, 404, { error: 'not_found' });
  if (!accepting) return reply(response, 503, { error: 'stopping' });

  const raw = await readBody(request, options.maxBodyBytes);
  if (!raw) {
    // Stop reading: the rest of the body is never buffered, and the connection closes once answered.
    response.setHeader('connection', 'close');
    return reply(response, 413, { error: 'too_large' });
  }
  const adapter = deps.providers[kind];
  const check = verifyCallback({
    secret: options.secret,
    raw,
    signature: firstHeader(request.headers[adapter.signatureHeader]),
    timestamp: firstHeader(request.headers[CALLBACK_TIMESTAMP_HEADER]),
    toleranceSeconds: options.toleranceSeconds,
  });
  if (check !== 'ok') return reply(response, 401, { error: check });
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return reply(response, 400, { error: 'invalid_json' });
  }
  const outcomes: CallbackOutcome[] = [];
  for (const callback of adapter.parseCallback(body)) outcomes.push(await applyCallback(deps, kind, callback));
  if (outcomes.includes('retry')) return reply(response, 425, { error: 'retry_later' });
  reply(response, 200, { ok: true, applied: outcomes.filter((outcome) => outcome === 'applied').length });
}

/** The body, or null as soon as it passes `limit` (a declared Content-Length above it is refused before reading). */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | null> {
  if (Number(request.headers['content-length'] ?? 0) > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        request.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

const firstHeader = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
