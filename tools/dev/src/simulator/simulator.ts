import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { CALLBACK_TIMESTAMP_HEADER, signCallback } from '@crm/shared';
import { exchange, keepAliveAgent } from '@crm/shared/outbound-http';
import { INSTANCE_KINDS, type InstanceKind } from '@crm/shared/schemas';
import { SimState, type SimNumber } from './state';
import { callbackBody, signatureHeaderOf, type SimEvent } from './wire';

export interface SimulatorOptions {
  host: string;
  port: number;
  /** The messaging replicas' callback listeners: each callback goes to the next, a retry to the one after. */
  callbackUrls: string[];
  callbackSecret: string;
  token: string;
  /** Delay between an accepted send and each of its status callbacks. */
  statusDelayMs: number;
  /** How long a send in `timeout` mode is held before it is answered. */
  holdMs: number;
  log?: (line: string) => void;
}

export interface RunningSimulator {
  port: number;
  state: SimState;
  stop(): Promise<void>;
}

type Reply = { status: number; body: unknown; headers?: Record<string, string> };
type Json = Record<string, unknown>;

/**
 * A provider simulator: one HTTP server speaking the official cloud API (/cloud), the QR-code bridge (/bridge)
 * and the page messenger of both social channels (/photoapp/graph, /socialmsg/graph), plus a control API
 * (/control) that scripts what the providers do: inbound messages, edits, disconnects, rate limits, billing
 * failures (131042), template approval. Callbacks are signed and retried until answered 2xx, like real providers.
 */
export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const state = new SimState();
  const sim = new Simulator(options, state);
  const server: Server = createServer((request, response) => {
    void sim.route(request).then(
      (reply) => send(response, reply),
      (error: unknown) =>
        send(response, { status: 500, body: { error: { message: error instanceof Error ? error.message : String(error) } } }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    state,
    stop: () =>
      new Promise<void>((resolve) => {
        sim.stopped = true;
        server.close(() => resolve());
        server.closeAllConnections();
        void sim.callbacks.destroy().catch(() => undefined);
      }),
  };
}

class Simulator {
  stopped = false;
  /** Round-robin position over the callback listeners. */
  private nextTarget = 0;
  /** Keep-alive connections to the callback listeners: the simulator shares the cores with what a bench measures. */
  readonly callbacks = keepAliveAgent();

  constructor(
    private readonly options: SimulatorOptions,
    private readonly state: SimState,
  ) {}

  async route(request: IncomingMessage): Promise<Reply> {
    const url = new URL(request.url ?? '/', 'http://sim');
    const method = request.method ?? 'GET';
    const body = method === 'GET' ? {} : await readJson(request);
    const path = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (path[0] === 'healthz') return { status: 200, body: { status: 'ok' } };
    if (path[0] === 'control') return this.control(method, path.slice(1), body, url.searchParams);
    if (request.headers.authorization !== `Bearer ${this.options.token}`)
      return { status: 401, body: { error: { code: 190, message: 'Invalid OAuth access token.' } } };
    const [product, , ref, resource] = path;
    const key = typeof request.headers['idempotency-key'] === 'string' ? request.headers['idempotency-key'] : undefined;
    if (product === 'cloud' && ref) {
      if (method === 'GET' && !resource)
        return { status: 200, body: { id: ref, payment_method_configured: this.state.number('official', ref).payment_method } };
      if (resource === 'message_templates') return this.templates(method, ref, body);
      if (method === 'POST' && resource === 'messages') return this.acceptOnce('official', ref, body, key);
    }
    if (product === 'bridge' && ref && method === 'POST' && resource === 'messages') return this.acceptOnce('qrcode', ref, body, key);
    if (
      (product === 'photoapp' || product === 'socialmsg') &&
      path[1] === 'graph' &&
      path[3] &&
      path[4] === 'messages' &&
      method === 'POST'
    )
      return this.acceptOnce(product, path[3], body, key);
    return { status: 404, body: { error: { message: `no route ${method} ${url.pathname}` } } };
  }

  /**
   * A send with an idempotency key is accepted once: a repeat (the sender retried after a timeout or a crash)
   * gets the first answer again and reaches nobody. Counted in `replayed`, so tests can tell retries happened.
   */
  private async acceptOnce(kind: InstanceKind, ref: string, body: Json, key: string | undefined): Promise<Reply> {
    if (!key) return this.accept(kind, ref, body);
    const memoKey = `${kind}:${ref}:${key}`;
    const first = this.state.accepted.get(memoKey);
    if (first) {
      this.state.replayed++;
      return first;
    }
    const before = this.state.sent.length;
    const reply = await this.accept(kind, ref, body);
    // Only a send that was taken (not a held "timeout" answered without an id) is remembered.
    if (this.state.sent.length > before) this.state.accepted.set(memoKey, reply);
    return reply;
  }

  /** A send: failure modes first, then connection, rate limit and template checks; then an id and later statuses. */
  private async accept(kind: InstanceKind, ref: string, body: Json): Promise<Reply> {
    const number = this.state.number(kind, ref);
    const failure = number.fail_next.shift();
    if (failure?.mode === 'timeout') {
      await new Promise((resolve) => setTimeout(resolve, this.options.holdMs));
      return { status: 200, body: {} };
    }
    if (failure?.mode === 'server_error') return { status: 503, body: { error: { code: 2, message: 'Service temporarily unavailable' } } };
    if (failure?.mode === 'error') return refusal(kind, 400, failure.code, failure.message);
    if (!number.connected)
      return kind === 'qrcode'
        ? { status: 409, body: { error: 'instance_disconnected' } }
        : refusal(kind, 400, kind === 'official' ? 131031 : 190, 'The number or page is not connected.');
    const wait = this.state.rateLimitWait(number);
    if (wait > 0) {
      const retryAfter = String(Math.max(1, Math.ceil(wait / 1000)));
      const code = kind === 'official' ? 130429 : 613;
      const reply =
        kind === 'qrcode'
          ? { status: 429, body: { error: 'rate_limited', retry_after: Number(retryAfter) } }
          : refusal(kind, 429, code, 'Rate limit hit');
      return { ...reply, headers: { 'retry-after': retryAfter } };
    }
    if (kind === 'official' && body.type === 'template') {
      const template = body.template as { name?: string; language?: { code?: string } } | undefined;
      const found = number.templates.find((t) => t.name === template?.name && t.language === template?.language?.code);
      if (!found) return refusal(kind, 404, 132001, 'Template name does not exist in the translation');
      if (found.status !== 'APPROVED') return refusal(kind, 400, 132015, `Template is ${found.status}`);
    }
    number.recent_sends.push(Date.now());
    const to = String((body.to as string | undefined) ?? (body.recipient as { id?: string } | undefined)?.id ?? '');
    const id = messageId(kind);
    this.state.sent.push({ id, kind, ref, to, body, at: new Date().toISOString() });
    this.scheduleStatuses(number, id, to, failure?.mode === 'failed_status' ? { code: failure.code, title: failure.message } : undefined);
    if (kind === 'official')
      return { status: 200, body: { messaging_product: 'chatapp', contacts: [{ input: to, wa_id: to }], messages: [{ id }] } };
    if (kind === 'qrcode') return { status: 201, body: { id, status: 'PENDING' } };
    return { status: 200, body: { recipient_id: to, message_id: id } };
  }

  /** The status callbacks of an accepted send; a billing problem (131042) or a scripted `failure` ends in `failed`. */
  private scheduleStatuses(number: SimNumber, id: string, recipient: string, failure?: { code: number; title: string }): void {
    const billingFails = number.kind === 'official' && (!number.payment_method || number.late_billing_failure);
    const failed = failure ?? (billingFails ? { code: 131042, title: 'Business eligibility payment issue' } : undefined);
    const steps: Array<Extract<SimEvent, { type: 'status' }>['status']> = failed
      ? ['sent', 'failed']
      : number.kind === 'photoapp' || number.kind === 'socialmsg'
        ? ['delivered', 'read']
        : ['sent', 'delivered', 'read'];
    void (async () => {
      for (const status of steps) {
        await new Promise((resolve) => setTimeout(resolve, this.options.statusDelayMs));
        if (this.stopped) return;
        const error = status === 'failed' ? failed : undefined;
        await this.post(number.kind, number.ref, { type: 'status', id, status, recipient, error, at: new Date() });
      }
    })().catch((error: unknown) => this.options.log?.(`status callbacks for ${id} failed: ${String(error)}`));
  }

  private templates(method: string, ref: string, body: Json): Reply {
    const number = this.state.number('official', ref);
    if (method === 'GET') return { status: 200, body: { data: number.templates } };
    const name = String(body.name ?? '');
    const language = String(body.language ?? '');
    if (!name || !language) return refusal('official', 400, 100, 'name and language are required');
    const existing = number.templates.find((t) => t.name === name && t.language === language);
    const template = existing ?? {
      id: token(15),
      name,
      language,
      category: String(body.category ?? 'utility'),
      status: 'PENDING',
      components: Array.isArray(body.components) ? body.components : [],
    };
    if (typeof body.status === 'string') template.status = body.status;
    if (!existing) number.templates.push(template);
    return { status: 200, body: { id: template.id, status: template.status, category: template.category } };
  }

  private async control(method: string, path: string[], body: Json, query: URLSearchParams): Promise<Reply> {
    const kind = INSTANCE_KINDS.find((candidate) => candidate === (body.channel ?? query.get('channel') ?? 'qrcode'));
    if (!kind) return { status: 400, body: { error: `channel must be one of ${INSTANCE_KINDS.join(', ')}` } };
    const ref = String(body.to_number ?? body.ref ?? query.get('ref') ?? this.state.lastRef(kind) ?? '');
    const resource = path[0];
    if (method === 'GET' && resource === 'sent')
      return {
        status: 200,
        body: { data: this.state.sent.filter((s) => !query.get('ref') || s.ref === query.get('ref')), replayed: this.state.replayed },
      };
    if (method === 'GET' && resource === 'numbers') {
      const last = Object.fromEntries(INSTANCE_KINDS.map((candidate) => [candidate, this.state.lastRef(candidate) ?? null]));
      return { status: 200, body: { data: [...this.state.numbers.values()], last } };
    }
    if (method !== 'POST') return { status: 404, body: { error: 'unknown control route' } };
    if (!ref) return { status: 400, body: { error: 'to_number (the provider handle of the number or page) is required' } };
    const number = this.state.number(kind, ref);
    const at = typeof body.timestamp === 'string' ? new Date(body.timestamp) : new Date();
    switch (resource) {
      case 'inbound': {
        const id = typeof body.id === 'string' ? body.id : messageId(kind);
        const event: SimEvent = {
          type: 'message',
          from: String(body.from ?? ''),
          name: typeof body.name === 'string' ? body.name : null,
          id,
          text: String(body.text ?? ''),
          at,
        };
        const repeat = Math.min(Math.max(Number(body.repeat ?? 1), 1), 20);
        const answers = body.concurrent
          ? await Promise.all(Array.from({ length: repeat }, () => this.post(kind, ref, event)))
          : await sequential(repeat, () => this.post(kind, ref, event));
        return { status: 200, body: { id, callback_statuses: answers } };
      }
      case 'edit':
        return this.answer(kind, ref, {
          type: 'edit',
          from: String(body.from ?? ''),
          id: String(body.id ?? ''),
          text: String(body.text ?? ''),
          at,
        });
      case 'delete':
        return this.answer(kind, ref, { type: 'delete', from: String(body.from ?? ''), id: String(body.id ?? ''), at });
      case 'reaction':
        return this.answer(kind, ref, {
          type: 'reaction',
          from: String(body.from ?? ''),
          id: messageId(kind),
          message_id: String(body.id ?? ''),
          emoji: String(body.emoji ?? ''),
          at,
        });
      case 'qr': {
        if (kind !== 'qrcode') return { status: 400, body: { error: 'only a qrcode number shows a QR code' } };
        // The session is unpaired until the phone scans the code: sends answer 409 like a disconnected number.
        number.connected = false;
        const code = typeof body.code === 'string' ? body.code : `2@${token(32)},${token(24)}==`;
        return this.answer(kind, ref, { type: 'qr', code, expires_at: new Date(Date.now() + 60_000) });
      }
      case 'phone-send':
        return this.answer(kind, ref, {
          type: 'phone_send',
          to: String(body.recipient ?? ''),
          id: messageId('qrcode'),
          text: String(body.text ?? ''),
          at,
        });
      case 'numbers':
        return this.configure(number, body);
      case 'templates': {
        const template = number.templates.find((t) => t.name === body.name && t.language === body.language);
        if (!template) return { status: 404, body: { error: 'no such template' } };
        template.status = String(body.status ?? template.status);
        const callback = await this.post(kind, ref, {
          type: 'template_status',
          name: template.name,
          language: template.language,
          status: template.status,
          ...(typeof body.reason === 'string' ? { reason: body.reason } : {}),
        });
        return { status: 200, body: { template, callback_status: callback } };
      }
      default:
        return { status: 404, body: { error: 'unknown control route' } };
    }
  }

  /** Posts one callback and answers with the messaging service's status (and the ids the callback carried). */
  private async answer(kind: InstanceKind, ref: string, event: SimEvent): Promise<Reply> {
    const callbackStatus = await this.post(kind, ref, event);
    return { status: 200, body: { ...('id' in event ? { id: event.id } : {}), callback_status: callbackStatus } };
  }

  private async configure(number: SimNumber, body: Json): Promise<Reply> {
    if (typeof body.payment_method === 'boolean') number.payment_method = body.payment_method;
    if (typeof body.late_billing_failure === 'boolean') number.late_billing_failure = body.late_billing_failure;
    if (body.rate_limit === null) number.rate_limit = null;
    else if (body.rate_limit && typeof body.rate_limit === 'object') {
      const limit = body.rate_limit as { limit?: number; window_ms?: number };
      number.rate_limit = { limit: Number(limit.limit ?? 1), window_ms: Number(limit.window_ms ?? 60_000) };
      number.recent_sends = [];
    }
    if (Array.isArray(body.fail_next)) {
      const modes = body.fail_next as SimNumber['fail_next'];
      // The page messenger reports deliveries and reads, never a failed delivery.
      if (number.kind !== 'qrcode' && number.kind !== 'official' && modes.some((mode) => mode.mode === 'failed_status'))
        return { status: 400, body: { error: 'a page reports no failed deliveries: use mode error (a refused send)' } };
      number.fail_next.push(...modes);
    }
    let callback: number | null = null;
    if (typeof body.connected === 'boolean' && body.connected !== number.connected) {
      number.connected = body.connected;
      callback = await this.post(number.kind, number.ref, { type: 'connection', connected: number.connected });
    }
    const { recent_sends: _recent, ...shown } = number;
    return { status: 200, body: { number: shown, callback_status: callback } };
  }

  /** Posts one signed callback, retrying non-2xx answers with a growing pause; returns the last HTTP status. */
  private async post(kind: InstanceKind, ref: string, event: SimEvent): Promise<number> {
    const raw = JSON.stringify(callbackBody(kind, ref, event));
    let status = 0;
    for (let attempt = 0; attempt < 8 && !this.stopped; attempt++) {
      const target = this.options.callbackUrls[this.nextTarget++ % this.options.callbackUrls.length] ?? '';
      try {
        const answer = await exchange(
          `${target}/callbacks/${kind}`,
          {
            method: 'POST',
            headers: callbackHeaders(kind, this.options.callbackSecret, raw),
            body: raw,
            signal: AbortSignal.timeout(10_000),
          },
          this.callbacks,
        );
        status = answer.status;
        if (status < 300 || status === 401) return status;
      } catch {
        status = 0;
      }
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
    }
    return status;
  }
}

/** Signed as each attempt leaves, so that a retry is not refused as a replay: the messaging signature scheme. */
function callbackHeaders(kind: InstanceKind, secret: string, raw: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    [CALLBACK_TIMESTAMP_HEADER]: String(timestamp),
    [signatureHeaderOf(kind)]: signCallback(secret, timestamp, raw),
  };
}

function refusal(kind: InstanceKind, status: number, code: number, message: string): Reply {
  return kind === 'qrcode'
    ? { status, body: { error: String(code), message } }
    : { status, body: { error: { message, type: 'OAuthException', code } } };
}

async function sequential(times: number, task: () => Promise<number>): Promise<number[]> {
  const results: number[] = [];
  for (let i = 0; i < times; i++) results.push(await task());
  return results;
}

/** A provider message id in the shape each provider uses. */
const messageId = (kind: InstanceKind): string =>
  kind === 'official' ? `wamid.${token(24)}` : kind === 'qrcode' ? `3EB0${token(16).toUpperCase()}` : `m_${token(24)}`;

const token = (length: number): string => randomBytes(length).toString('base64url').replace(/[-_]/g, 'x').slice(0, length);

function readJson(request: IncomingMessage): Promise<Json> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        resolve(parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Json) : {});
      } catch {
        resolve({});
      }
    });
    request.on('error', () => resolve({}));
  });
}

function send(response: ServerResponse, reply: Reply): void {
  response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  response.end(JSON.stringify(reply.body));
}
