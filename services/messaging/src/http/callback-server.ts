import { INSTANCE_KINDS, type InstanceKind } from '@crm/shared/schemas';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { applyCallback, type CallbackOutcome } from '../domain/callbacks';
import type { MessagingDeps } from '../domain/deps';
import { verifySignature } from './signature';

const MAX_BODY_BYTES = 1_048_576;

export interface CallbackServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * Receives provider callbacks at POST /callbacks/{qrcode|official|photoapp|socialmsg}. The signature is checked
 * on the raw bytes before anything is parsed. The answer is 200 once every callback of the body is applied, 425
 * when a status arrived before its send was stored (the provider retries), 401 on a bad signature.
 */
export async function startCallbackServer(
  deps: MessagingDeps,
  options: { host: string; port: number; secret: string },
): Promise<CallbackServer> {
  let accepting = true;
  const server: Server = createServer((request, response) => {
    void handle(deps, options.secret, request, response, accepting).catch((error: unknown) => {
      deps.logger.error({ err: error }, 'provider callback failed');
      if (!response.headersSent) reply(response, 500, { error: 'internal_error' });
    });
  });
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
  secret: string,
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

  const raw = await readBody(request);
  if (!raw) return reply(response, 413, { error: 'too_large' });
  const adapter = deps.providers[kind];
  const signature = request.headers[adapter.signatureHeader];
  if (!verifySignature(secret, raw, Array.isArray(signature) ? signature[0] : signature))
    return reply(response, 401, { error: 'invalid_signature' });
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

function readBody(request: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
