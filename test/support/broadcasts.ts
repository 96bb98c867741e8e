import { randomToken } from '@crm/shared';
import { expect } from 'vitest';
import { createNumber, createTemplate } from '../../services/messaging/src/domain/admin';
import { listAll, type CrmClient, type operations, type RequestBody } from '@crm/client';
import { eventually, messagingAdmin, sim, type NumberKind, type TestNumber } from './messaging';
import type { TestOrg } from './orgs';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A number in warm-up: at most `dailyLimit` outbound messages in 24 hours unless a launch confirms the override. */
export async function addWarmupNumber(
  orgId: string,
  kind: Extract<NumberKind, 'qrcode' | 'official'>,
  dailyLimit: number,
  name = `${kind} warm-up`,
): Promise<TestNumber> {
  const ref = `t-${kind}-${randomToken(10)}`;
  const view = await createNumber(await messagingAdmin(), {
    org_id: orgId,
    kind,
    name,
    provider_ref: ref,
    warmup_daily_limit: dailyLimit,
  });
  return { id: String(view.id), ref, kind };
}

/** An official template with `{{n}}` placeholders in a header and a body (addTemplate makes body-only ones). */
export async function addHeaderTemplate(
  orgId: string,
  instanceId: string,
  template: { name: string; header: string; body: string; language?: string; category?: string; status?: string },
): Promise<{ id: string; variables: Array<{ key: string; component: string }> }> {
  const view = await createTemplate(await messagingAdmin(), {
    org_id: orgId,
    instance_id: instanceId,
    name: template.name,
    language: template.language ?? 'en_US',
    category: template.category ?? 'marketing',
    status: template.status ?? 'APPROVED',
    components: [
      { type: 'HEADER', format: 'TEXT', text: template.header },
      { type: 'BODY', text: template.body },
    ],
  });
  return { id: String(view.id), variables: view.variables as Array<{ key: string; component: string }> };
}

/** One send the provider simulator accepted. */
export interface SimSend {
  id: string;
  kind: string;
  ref: string;
  to: string;
  body: any;
  at: string;
}

/** What the simulator accepted from one number, in the order it accepted it. */
export async function sendsOf(number: TestNumber): Promise<SimSend[]> {
  return (await sim<{ data: SimSend[] }>(`sent?ref=${number.ref}`)).body.data;
}

/** Phone numbers unique within one test file (uniquePhone() collides among thousands). */
export function phoneSeries(): (index: number) => string {
  const block = String(Math.floor(Math.random() * 900) + 100);
  return (index) => `+1666${block}${String(index).padStart(5, '0')}`;
}

/** The digits a provider addresses for a phone. */
export const digitsOf = (phone: string): string => phone.replace(/\D/g, '');

export interface CreatedContact {
  id: string;
  name: string;
  phone: string | null;
  created_at: string;
}

/** Creates contacts one after the other, so their created_at (the send order) follows the list. */
export async function createContactsInOrder(org: TestOrg, bodies: Array<ContactBody>): Promise<CreatedContact[]> {
  const created: CreatedContact[] = [];
  for (const body of bodies) {
    const { data, error, response } = await org.client.POST('/v1/contacts', { body });
    expect(response.status, JSON.stringify(error)).toBe(201);
    created.push(data!.data);
    // Distinct created_at milliseconds: the audience order is then the order of this list.
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  return created;
}

/** Creates many contacts, `concurrency` requests at a time; the answer keeps the order of `bodies`. */
export async function createContactsFast(org: TestOrg, bodies: Array<ContactBody>, concurrency = 25): Promise<CreatedContact[]> {
  const created: CreatedContact[] = [];
  for (let start = 0; start < bodies.length; start += concurrency) {
    const batch = await Promise.all(
      bodies.slice(start, start + concurrency).map(async (body) => {
        const { data, error, response } = await org.client.POST('/v1/contacts', { body });
        if (response.status !== 201) throw new Error(`POST /v1/contacts answered ${response.status}: ${JSON.stringify(error)}`);
        return data!.data as CreatedContact;
      }),
    );
    created.push(...batch);
  }
  return created;
}

/** POST /v1/broadcasts that must succeed; the created broadcast. */
export async function createBroadcast(client: CrmClient, body: Record<string, unknown>): Promise<any> {
  // Tests build bodies from parts (audiences, templates) whose literals TypeScript widens; the server validates them.
  const { data, error, response } = await client.POST('/v1/broadcasts', { body: body as BroadcastBody });
  expect(response.status, JSON.stringify(error)).toBe(201);
  return data!.data;
}

/** POST /v1/broadcasts/{id}/launch that must be accepted (202). */
export async function launch(client: CrmClient, id: string, body: LaunchBody = {}): Promise<any> {
  const { data, error, response } = await client.POST('/v1/broadcasts/{id}/launch', { params: { path: { id } }, body });
  expect(response.status, JSON.stringify(error)).toBe(202);
  return data!.data;
}

/** Polls the broadcast until `done` holds for it. */
export async function waitForBroadcast(
  client: CrmClient,
  id: string,
  what: string,
  done: (broadcast: any) => boolean,
  timeoutMs = 20_000,
): Promise<any> {
  return eventually(
    `broadcast ${what}`,
    async () => {
      const { data, response } = await client.GET('/v1/broadcasts/{id}', { params: { path: { id } } });
      return response.status === 200 && done(data!.data) ? data!.data : undefined;
    },
    timeoutMs,
  );
}

const FINAL = ['completed', 'completed_with_errors', 'failed'];

/**
 * Waits for a final status and for every provider status to be applied: no recipient left pending, sent or
 * delivered (each ends read, failed or excluded). Read from the recipient log, the record of each contact. On
 * timeout the error shows where the broadcast stood.
 */
export async function waitForFinished(client: CrmClient, id: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const broadcast = (await client.GET('/v1/broadcasts/{id}', { params: { path: { id } } })).data?.data;
    const left: Record<string, number> = {};
    for (const status of ['pending', 'sent', 'delivered'] as const) {
      const page = await client.GET('/v1/broadcasts/{id}/recipients', { params: { path: { id }, query: { status, limit: 100 } } });
      left[status] = page.response.status === 200 ? page.data!.data.length : -1;
    }
    if (FINAL.includes(broadcast?.status ?? '') && Object.values(left).every((count) => count === 0)) return broadcast;
    last = `status ${broadcast?.status}, stats ${JSON.stringify(broadcast?.stats)}, recipients left (first 100 of each): ${JSON.stringify(left)}`;
    await sleep(250);
  }
  throw new Error(`broadcast ${id} did not finish with every status applied within ${timeoutMs} ms; last: ${last}`);
}

/** The broadcast's stats must become exactly `expected` (status callbacks land shortly after the last send). */
export async function expectStats(client: CrmClient, id: string, expected: Record<string, number>, timeoutMs = 5_000): Promise<void> {
  let last: unknown;
  try {
    await eventually(
      `stats of ${id}`,
      async () => {
        const stats = (await client.GET('/v1/broadcasts/{id}', { params: { path: { id } } })).data!.data.stats as Record<string, number>;
        last = stats;
        return (
          Object.keys(stats).length === Object.keys(expected).length &&
          Object.entries(expected).every(([key, value]) => stats[key] === value)
        );
      },
      timeoutMs,
    );
  } catch {
    // Shows the difference.
    expect(last).toEqual(expected);
  }
}

/** Every recipient of a broadcast, in the list's order. */
export async function recipientsOf(client: CrmClient, id: string, query: RecipientsQuery = {}): Promise<any[]> {
  return listAll(client, '/v1/broadcasts/{id}/recipients', { path: { id }, query });
}

type ContactBody = RequestBody<'/v1/contacts', 'post'>;
type LaunchBody = RequestBody<'/v1/broadcasts/{id}/launch', 'post'>;
type BroadcastBody = RequestBody<'/v1/broadcasts', 'post'>;
type RecipientsQuery = Omit<NonNullable<operations['listBroadcastRecipients']['parameters']['query']>, 'cursor'>;

/** Waits until the simulator holds at least `count` sends from the number. */
export async function waitForSends(number: TestNumber, count: number, timeoutMs = 15_000): Promise<SimSend[]> {
  return eventually(
    `${count} sends from ${number.ref}`,
    async () => {
      const sends = await sendsOf(number);
      return sends.length >= count ? sends : undefined;
    },
    timeoutMs,
  );
}
