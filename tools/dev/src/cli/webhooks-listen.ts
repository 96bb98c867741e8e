import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { exitWith, invocation, runCli, text, UsageError, type CliProgram, type CliValues } from '@crm/shared/cli';
import { startListener, type Delivery } from '../webhooks/listener';

const ROOT = resolve(__dirname, '../../../..');

/** The running `npm start`'s base URL (its state file), else the default one. */
function defaultBaseUrl(): string {
  const state = resolve(ROOT, '.local/run/npm-start.json');
  if (existsSync(state)) return (JSON.parse(readFileSync(state, 'utf8')) as { baseUrl: string }).baseUrl;
  return 'http://127.0.0.1:8080';
}

/** The demo organization's key that `npm start` printed (kept in .local/), when none is given. */
function defaultKey(): string {
  const file = resolve(ROOT, '.local/demo-key.json');
  if (!existsSync(file)) throw new UsageError('no --key and no demo key in .local/ (run npm start once, or pass --key sk_live_…)');
  return (JSON.parse(readFileSync(file, 'utf8')) as { api_key: string }).api_key;
}

async function api<T>(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  }).catch(() => {
    throw new Error(`the API does not answer at ${baseUrl} (is npm start running? --base-url)`);
  });
  const answer = (await response.json().catch(() => ({}))) as { data?: T; error?: { code: string; message: string } };
  if (!response.ok)
    throw new Error(`${method} ${path} answered ${response.status} ${answer.error?.code ?? ''}: ${answer.error?.message ?? ''}`);
  return answer.data as T;
}

function print(delivery: Delivery, json: boolean): void {
  if (json) return console.log(JSON.stringify(delivery.verified ? { verified: true, ...delivery.event } : delivery));
  const time = delivery.attemptAt.toISOString().slice(11, 19);
  if (!delivery.verified) return console.error(`${time}  REFUSED  signature: ${delivery.reason} (answered 400)`);
  const object = (delivery.event.data as { object?: { id?: string } } | null)?.object?.id ?? '';
  console.log(`${time}  ${delivery.event.type.padEnd(28)} ${delivery.event.id}  ${object}  signature verified`);
}

/** Resolves at Ctrl-C (SIGINT) or SIGTERM. */
const interrupted = () => new Promise<void>((done) => ['SIGINT', 'SIGTERM'].forEach((signal) => process.once(signal, () => done())));

async function listen(values: CliValues) {
  const baseUrl = (text(values['base-url']) || process.env.CRM_BASE_URL || defaultBaseUrl()).replace(/\/$/, '');
  const key = text(values.key) || process.env.CRM_API_KEY || defaultKey();
  const kinds = (await api<Array<{ type: string }>>(baseUrl, key, 'GET', '/v1/webhooks/event-types?limit=100')).map((kind) => kind.type);
  const events = text(values.events)
    ? text(values.events)
        .split(',')
        .map((kind) => kind.trim())
    : kinds;
  const unknown = events.filter((kind) => !kinds.includes(kind));
  if (unknown.length > 0)
    throw new UsageError(`unknown event type ${unknown.join(', ')} (GET /v1/webhooks/event-types lists the ${kinds.length})`);

  let secret = '';
  const counts = { verified: 0, refused: 0 };
  const listener = await startListener({
    port: Number(text(values.port) || 0),
    secret: () => secret,
    onDelivery: (delivery) => {
      counts[delivery.verified ? 'verified' : 'refused']++;
      print(delivery, values.json === true);
    },
  });
  let subscription: { id: string; secret: string };
  try {
    subscription = await api(baseUrl, key, 'POST', '/v1/webhooks', { name: `webhooks:listen ${listener.url}`, url: listener.url, events });
  } catch (error) {
    await listener.close();
    throw error;
  }
  secret = subscription.secret;
  const ready = { listening: listener.url, subscription: subscription.id, events: events.length };
  console.log(
    values.json
      ? JSON.stringify(ready)
      : `Listening on ${listener.url} for ${events.length === kinds.length ? 'every event type' : events.join(', ')} (subscription ${subscription.id}); Ctrl-C ${values.keep ? 'stops' : 'stops and removes the subscription'}.`,
  );
  await interrupted();
  await listener.close();
  if (!values.keep) await api(baseUrl, key, 'DELETE', `/v1/webhooks/${subscription.id}`);
  return { subscription: subscription.id, removed: !values.keep, ...counts };
}

/**
 * `npm run webhooks:listen`: subscribes a local receiver to the running API's events, verifies every delivery's
 * signature and prints it (like the listen command of a payment provider's CLI); Ctrl-C removes the subscription.
 */
const program: CliProgram<undefined> = {
  invocation: invocation(),
  about: 'Receives the webhooks of the local API: subscribes, verifies each signature, prints each delivery.',
  environment: [
    'CRM_BASE_URL  the API (default: the running npm start, else http://127.0.0.1:8080)',
    'CRM_API_KEY   a key with write:webhooks (default: the demo key npm start printed, from .local/)',
  ],
  single: true,
  commands: [
    {
      name: 'listen',
      summary: 'subscribes a local receiver and prints every verified delivery until Ctrl-C',
      options: [
        { name: 'events', value: '<type,type>', help: 'event types to receive (default: every type)' },
        { name: 'port', value: '<port>', integer: { min: 0, max: 65535 }, help: 'local port of the receiver (default: a free one)' },
        { name: 'key', value: '<sk_live_…>', help: 'the API key (default: CRM_API_KEY, else the demo key)' },
        { name: 'base-url', value: '<url>', help: 'the API (default: CRM_BASE_URL, else the running npm start)' },
        { name: 'keep', help: 'leave the subscription in place at Ctrl-C' },
      ],
      example: '--events contact.created,deal.created',
      needsContext: false,
      run: (values) => listen(values),
    },
  ],
  open: () => Promise.resolve({ context: undefined, close: () => Promise.resolve() }),
};

exitWith(runCli(program, process.argv.slice(2)));
