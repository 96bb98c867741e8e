import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message of an OpenAI chat-completions request. */
export interface ChatTurn {
  role: string;
  content: string;
}

/** About 4 characters per token, never zero: the usage a model would report, close enough for a fake. */
const estimateTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

/**
 * What the next calls get instead of a normal answer (scripted with `script`):
 * - `rate_limit`: 429 with `Retry-After` (seconds, default 1) and, when given, `retry-after-ms`;
 * - `server_error`: a 5xx (default 500);
 * - `hang`: no answer at all, until the client gives up or the server closes;
 * - `malformed`: 200 with a body that is not JSON;
 * - `no_usage`: a normal answer without its `usage` field.
 */
export type FakeBehaviour =
  | { kind: 'rate_limit'; retryAfterSeconds?: number; retryAfterMs?: number }
  | { kind: 'server_error'; status?: number }
  | { kind: 'hang' }
  | { kind: 'malformed' }
  | { kind: 'no_usage' };

export interface RecordedRequest {
  method: string;
  path: string;
  /** Whether the bearer key matched; the key itself is not recorded. */
  authorized: boolean;
  /** The parsed JSON body, or null when it was not JSON. */
  body: { model?: unknown; messages?: ChatTurn[]; temperature?: unknown } | null;
}

export interface FakeOpenAiServer {
  /** Pass as the provider's base URL: `http://host:port/v1`. */
  readonly baseUrl: string;
  readonly port: number;
  /** Every request received, in order, including the unauthorized and the scripted ones. */
  readonly requests: readonly RecordedRequest[];
  /** The next `count` authorized chat-completion calls get `behaviour`; queued after what is already scripted. */
  script(count: number, behaviour: FakeBehaviour): void;
  /** Forgets the recorded requests and the script. */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeOpenAiOptions {
  apiKey: string;
  /** 0 (default): a free port. */
  port?: number;
  host?: string;
}

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A local fake of the OpenAI chat-completions API for tests and the demo. Deterministic answers: it repeats the last
 * user message (`Thanks for your message! You said: "…"`), or hands off (`HANDOFF: … | …`) when that message contains
 * the word "human". Like the real API, a wrong key gets 401 with the key quoted back, so that tests prove the adapter
 * does not repeat it.
 */
export async function startFakeOpenAiServer(options: FakeOpenAiOptions): Promise<FakeOpenAiServer> {
  const requests: RecordedRequest[] = [];
  const queue: FakeBehaviour[] = [];
  const server = createServer((req, res) => {
    readBody(req)
      .then((raw) => handle(req, res, raw))
      .catch(() => json(res, 400, { error: { message: 'Could not read the request body.', type: 'invalid_request_error' } }));
  });

  function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const body = parseJson(raw);
    const authorized = req.headers.authorization === `Bearer ${options.apiKey}`;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push({ method: req.method ?? '', path, authorized, body });
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      json(res, 404, { error: { message: `Unknown route ${req.method ?? ''} ${path}.`, type: 'invalid_request_error' } });
      return;
    }
    if (!authorized) {
      const given = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      json(res, 401, {
        error: { message: `Incorrect API key provided: ${given}.`, type: 'invalid_request_error', code: 'invalid_api_key' },
      });
      return;
    }
    if (!Array.isArray(body?.messages) || typeof body.model !== 'string' || body.model.length === 0) {
      json(res, 400, { error: { message: 'model and messages are required.', type: 'invalid_request_error' } });
      return;
    }
    answer(res, body.model, body.messages, queue.shift());
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    baseUrl: `http://${host}:${address.port}/v1`,
    port: address.port,
    requests,
    script(count, behaviour) {
      for (let i = 0; i < count; i += 1) queue.push(behaviour);
    },
    reset() {
      requests.length = 0;
      queue.length = 0;
    },
    close() {
      // Hanging calls hold their sockets open: close them, or close() would wait for the clients' timeouts.
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(res: ServerResponse, model: string, messages: ChatTurn[], behaviour: FakeBehaviour | undefined): void {
  switch (behaviour?.kind) {
    case 'rate_limit': {
      const headers: Record<string, string> = { 'retry-after': String(behaviour.retryAfterSeconds ?? 1) };
      if (behaviour.retryAfterMs !== undefined) headers['retry-after-ms'] = String(behaviour.retryAfterMs);
      json(res, 429, { error: { message: 'Rate limit reached.', type: 'requests', code: 'rate_limit_exceeded' } }, headers);
      return;
    }
    case 'server_error':
      json(res, behaviour.status ?? 500, { error: { message: 'The server had an error.', type: 'server_error' } });
      return;
    case 'hang':
      return;
    case 'malformed':
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [');
      return;
    case 'no_usage':
    case undefined:
      json(res, 200, completion(model, messages, behaviour?.kind !== 'no_usage'));
  }
}

function completion(model: string, messages: ChatTurn[], withUsage: boolean): Record<string, unknown> {
  const last = [...messages].reverse().find((turn) => turn.role === 'user')?.content ?? '';
  const content = /\bhuman\b/i.test(last)
    ? `HANDOFF: The contact asked for a human | The contact wrote: "${last}"`
    : `Thanks for your message! You said: "${last}"`;
  const prompt_tokens = estimateTokens(messages.map((turn) => turn.content).join('\n'));
  const completion_tokens = estimateTokens(content);
  return {
    id: `chatcmpl-fake-${prompt_tokens}-${completion_tokens}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    ...(withUsage ? { usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } } : {}),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(raw: string): RecordedRequest['body'] {
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as RecordedRequest['body']) : null;
  } catch {
    return null;
  }
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
