import type { CrmClient } from '@crm/client';
import { createLogger, createStorage, randomToken } from '@crm/shared';
import mongoose from 'mongoose';
import { loadMessagingConfig } from '../../services/messaging/src/config';
import { createNumber, createTemplate } from '../../services/messaging/src/domain/admin';
import type { MessagingDeps } from '../../services/messaging/src/domain/deps';
import { createDeps } from '../../services/messaging/src/wiring';
import { testSystem } from './system';

let depsPromise: Promise<MessagingDeps> | undefined;

/** The messaging service's admin functions on the run's database: how operators connect numbers and templates. */
export function messagingAdmin(): Promise<MessagingDeps> {
  depsPromise ??= (async () => {
    const { env } = testSystem();
    const config = loadMessagingConfig({ ...env, LOG_LEVEL: 'silent' });
    const connection = await mongoose
      .createConnection(config.MONGODB_URI, { dbName: config.MESSAGING_DB_NAME, retryWrites: false })
      .asPromise();
    const deps = createDeps(createStorage(connection), config, createLogger('test-messaging-admin', 'silent'));
    await Promise.all(Object.values(connection.models).map((model) => model.init()));
    return deps;
  })();
  return depsPromise;
}

export type NumberKind = 'qrcode' | 'official' | 'photoapp' | 'socialmsg';

export interface TestNumber {
  id: string;
  /** The provider's handle: what the simulator calls the number or page. */
  ref: string;
  kind: NumberKind;
}

/** Connects a number or page for an organization, under a handle unique to this run. */
export async function addNumber(
  orgId: string,
  kind: NumberKind,
  options: { name?: string; status?: string; isDefault?: boolean; phone?: string } = {},
): Promise<TestNumber> {
  const deps = await messagingAdmin();
  const ref = `t-${kind}-${randomToken(10)}`;
  const view = await createNumber(deps, {
    org_id: orgId,
    kind,
    name: options.name ?? `${kind} number`,
    provider_ref: ref,
    status: options.status,
    is_default: options.isDefault,
    phone_number: options.phone,
  });
  return { id: String(view.id), ref, kind };
}

export async function addTemplate(
  orgId: string,
  instanceId: string,
  template: { name: string; language?: string; status?: string; category?: string; text?: string },
) {
  const deps = await messagingAdmin();
  return createTemplate(deps, {
    org_id: orgId,
    instance_id: instanceId,
    name: template.name,
    language: template.language ?? 'en_US',
    category: template.category ?? 'utility',
    status: template.status ?? 'APPROVED',
    components: [{ type: 'BODY', text: template.text ?? 'Hello there' }],
  });
}

/** The provider simulator's control API (the same one `npm run sim` drives). */
export async function sim<T = any>(path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const { env } = testSystem();
  const response = await fetch(
    `${env.SIM_URL}/control/${path}`,
    body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  return { status: response.status, body: (await response.json()) as T };
}

/** A contact writes to a number or page; resolves once the provider's callback was answered. */
export async function inbound(
  number: TestNumber,
  message: { from: string; text: string; name?: string; id?: string; timestamp?: string; repeat?: number; concurrent?: boolean },
) {
  const response = await sim<{ id: string; callback_statuses: number[] }>('inbound', {
    channel: number.kind,
    to_number: number.ref,
    ...message,
  });
  if (response.status !== 200) throw new Error(`simulator inbound failed: ${JSON.stringify(response.body)}`);
  return response.body;
}

export async function configureNumber(number: TestNumber, settings: Record<string, unknown>) {
  return sim('numbers', { channel: number.kind, to_number: number.ref, ...settings });
}

/** Polls until `check` returns a value (not undefined/false), or fails after `timeoutMs`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}

/** A phone number unique to this run (E.164). */
export const uniquePhone = (): string => `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;

/** POST /v1/messages/send of a chat text from `instanceId` to a contact; the typed answer. */
export function sendChatText(client: CrmClient, contactId: string, instanceId: string, content: string) {
  return client.POST('/v1/messages/send', { body: { contact_id: contactId, channel: 'chatapp', instance_id: instanceId, content } });
}

/** A template send (no components) to a contact over a chat number. */
export function sendTemplate(client: CrmClient, contactId: string, instanceId: string, name: string, language: string) {
  return client.POST('/v1/messages/send', {
    body: { contact_id: contactId, channel: 'chatapp', instance_id: instanceId, template_name: name, template_language: language },
  });
}
