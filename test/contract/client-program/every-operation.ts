/**
 * A program a third-party developer could write: every operation of the API through a client generated from the
 * served OpenAPI document by maintained generators (openapi-typescript for the types, openapi-fetch at run time).
 * test/contract/typed-client.test.ts generates ./generated/api.ts from the live document and type-checks this file with
 * `tsc --strict`; a document that under-describes the API (a field typed `unknown`, an optional secret, a free-form
 * enum) fails to compile here. It is only compiled, never run: its calls need real records.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/api';

type Schemas = components['schemas'];
const api = createClient<paths>({ baseUrl: 'https://crm.example.com', headers: { authorization: 'Bearer sk_live_example' } });
const id = 'x';
const path = { id };

/** Compile-time equality of two types: the precision this program relies on. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const exact = <A, B>(proof: Equal<A, B>): Equal<A, B> => proof;

// What the document must say exactly (issue #19): typed custom fields, integer counters, the secret of a new webhook,
// the error classes.
exact<Schemas['ContactDetail']['messages_count'], number>(true);
exact<Schemas['Contact']['custom_fields'][string], string | number | boolean | null | string[]>(true);
exact<Schemas['WebhookWithSecret']['secret'], string>(true);
exact<Schemas['Webhook'] extends { secret: unknown } ? true : false, false>(true);
exact<
  Schemas['Error']['error']['type'],
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'unprocessable'
  | 'rate_limited'
  | 'internal_error'
  | 'upstream_error'
  | 'unavailable'
>(true);

export async function contacts(): Promise<void> {
  const list = await api.GET('/v1/contacts', { params: { query: { limit: 100, sort: 'created_at', tag: 'vip' } } });
  const first: string | undefined = list.data?.data[0]?.id;
  const created = await api.POST('/v1/contacts', {
    params: { header: { 'Idempotency-Key': crypto.randomUUID() } },
    body: { name: 'Ada', email: 'ada@example.com', phone: '+14155550123', tags: ['vip'], custom_fields: { plan: 'pro' } },
  });
  const detail = await api.GET('/v1/contacts/{id}', { params: { path: { id: first ?? created.data?.data.id ?? id } } });
  const messages: number | undefined = detail.data?.data.messages_count;
  await api.PATCH('/v1/contacts/{id}', { params: { path }, body: { name: 'Ada L.', company_id: null } });
  await api.DELETE('/v1/contacts/{id}', { params: { path } });
  await api.POST('/v1/contacts/{id}/tags', { params: { path }, body: { tags: ['lead'] } });
  await api.DELETE('/v1/contacts/{id}/tags/{tag}', { params: { path: { id, tag: 'lead' } } });
  await api.GET('/v1/contacts/{id}/deals', { params: { path, query: { status: 'open' } } });
  await api.GET('/v1/contacts/{id}/notes', { params: { path } });
  await api.POST('/v1/contacts/{id}/notes', { params: { path }, body: { content: 'Called', color: 'blue' } });
  await api.PATCH('/v1/contacts/{id}/notes/{noteId}', { params: { path: { id, noteId: id } }, body: { content: 'Called back' } });
  await api.DELETE('/v1/contacts/{id}/notes/{noteId}', { params: { path: { id, noteId: id } } });
  const merged = await api.POST('/v1/contacts/{id}/merge', {
    params: { path, header: { 'Idempotency-Key': crypto.randomUUID() } },
    body: { contact_ids: [first ?? id] },
  });
  const survivorTags: string[] | undefined = merged.data?.data.tags;
  const optOut = await api.POST('/v1/contacts/{id}/opt-out', { params: { path } });
  const optedOutAt: string | undefined = optOut.data?.data.opted_out_at;
  const batch = await api.POST('/v1/contacts/batch/upsert', {
    params: { header: { 'Idempotency-Key': crypto.randomUUID() } },
    body: { items: [{ external_id: 'shop-10482', name: 'Maria Oliveira', email: 'maria@example.com' }] },
  });
  const itemStatus: 'created' | 'updated' | 'unchanged' | 'error' | undefined = batch.data?.data[0]?.status;
  const itemError: string | undefined = batch.data?.data[0]?.error?.code;
  await api.POST('/v1/companies/batch/upsert', { body: { items: [{ external_id: 'erp-77', name: 'Padaria Central' }] } });
  void messages;
  void survivorTags;
  void optedOutAt;
  void itemStatus;
  void itemError;
}

export async function companies(): Promise<void> {
  await api.GET('/v1/companies', { params: { query: { size: '11-50' } } });
  await api.POST('/v1/companies', { body: { name: 'Padaria Central', website: 'https://padaria.example' } });
  await api.GET('/v1/companies/{id}', { params: { path } });
  await api.PATCH('/v1/companies/{id}', { params: { path }, body: { sector: 'Food' } });
  const refused = await api.DELETE('/v1/companies/{id}', { params: { path } });
  const code: string | undefined = refused.error?.error.code;
  await api.GET('/v1/companies/{id}/contacts', { params: { path } });
  await api.GET('/v1/companies/{id}/deals', { params: { path } });
  void code;
}

export async function deals(): Promise<void> {
  await api.GET('/v1/deals', { params: { query: { status: 'won', sort: 'value', order: 'desc' } } });
  const deal = await api.POST('/v1/deals', { body: { title: 'Annual plan', value: 4800, contact_ids: [id] } });
  const stage: string | undefined = deal.data?.data.stage.id;
  await api.GET('/v1/deals/{id}', { params: { path } });
  await api.PATCH('/v1/deals/{id}', { params: { path }, body: { probability: 60 } });
  await api.DELETE('/v1/deals/{id}', { params: { path } });
  await api.GET('/v1/deals/{id}/notes', { params: { path } });
  await api.POST('/v1/deals/{id}/notes', { params: { path }, body: { content: 'Sent the proposal' } });
  await api.PATCH('/v1/deals/{id}/notes/{noteId}', { params: { path: { id, noteId: id } }, body: { category: 'follow_up' } });
  await api.DELETE('/v1/deals/{id}/notes/{noteId}', { params: { path: { id, noteId: id } } });
  await api.POST('/v1/deals/{id}/move', { params: { path }, body: { stage_id: stage ?? id } });
  await api.POST('/v1/deals/{id}/win', { params: { path }, body: {} });
  await api.POST('/v1/deals/{id}/lose', { params: { path }, body: { lost_reason: 'Chose a competitor' } });
  await api.POST('/v1/deals/{id}/reopen', { params: { path } });
  await api.POST('/v1/deals/{id}/transfer', { params: { path }, body: { funnel_id: id } });
}

export async function funnelsAndTasks(): Promise<void> {
  await api.GET('/v1/funnels');
  await api.POST('/v1/funnels', { body: { name: 'Sales', stages: [{ name: 'Lead' }, { name: 'Won', color: '#22C55E' }] } });
  await api.GET('/v1/funnels/{id}', { params: { path } });
  await api.PATCH('/v1/funnels/{id}', { params: { path }, body: { is_default: true } });
  await api.POST('/v1/funnels/{id}/stages', { params: { path }, body: { name: 'Proposal', position: 2 } });
  await api.PATCH('/v1/funnels/{id}/stages/{stageId}', { params: { path: { id, stageId: id } }, body: { probability: 50 } });
  await api.DELETE('/v1/funnels/{id}/stages/{stageId}', { params: { path: { id, stageId: id } } });
  await api.GET('/v1/tasks', { params: { query: { status: 'open' } } });
  await api.POST('/v1/tasks', { body: { title: 'Call back', type: 'call', priority: 'high', due_at: '2026-12-01T09:00:00.000Z' } });
  await api.GET('/v1/tasks/{id}', { params: { path } });
  await api.PATCH('/v1/tasks/{id}', { params: { path }, body: { priority: 'low' } });
  await api.DELETE('/v1/tasks/{id}', { params: { path } });
  await api.POST('/v1/tasks/{id}/complete', { params: { path } });
  await api.POST('/v1/tasks/{id}/reopen', { params: { path } });
}

export async function messaging(): Promise<void> {
  await api.GET('/v1/conversations', { params: { query: { status: 'open', channel: 'chatapp' } } });
  await api.GET('/v1/conversations/{id}', { params: { path } });
  await api.GET('/v1/conversations/{id}/messages', { params: { path } });
  await api.POST('/v1/conversations/{id}/assign', { params: { path }, body: { assigned_to: null } });
  await api.POST('/v1/conversations/{id}/close', { params: { path } });
  const sent = await api.POST('/v1/messages/send', { body: { contact_id: id, channel: 'chatapp', content: 'Hello' } });
  const status: Schemas['Message']['status'] | undefined = sent.data?.data.status;
  await api.GET('/v1/messages/{id}', { params: { path } });
  await api.GET('/v1/chatapp-instances');
  await api.GET('/v1/chatapp-instances/{id}', { params: { path } });
  await api.GET('/v1/chatapp-instances/{id}/templates', { params: { path } });
  void status;
}

export async function broadcasts(): Promise<void> {
  const audience = { type: 'tags' as const, tags: ['vip'] };
  await api.GET('/v1/broadcasts', { params: { query: { status: 'draft' } } });
  await api.POST('/v1/broadcasts', {
    body: { name: 'Spring sale', chatappInstanceIds: [id], audience, message: { type: 'text', content: '20% off' } },
  });
  await api.POST('/v1/broadcasts/audience/estimate', { body: { audience } });
  await api.GET('/v1/broadcasts/{id}', { params: { path } });
  await api.PATCH('/v1/broadcasts/{id}', { params: { path }, body: { settings: { sendProfile: 'moderate' } } });
  await api.DELETE('/v1/broadcasts/{id}', { params: { path } });
  await api.POST('/v1/broadcasts/{id}/launch', { params: { path }, body: { confirmWarmupOverride: true } });
  await api.POST('/v1/broadcasts/{id}/schedule', { params: { path }, body: { scheduledAt: '2026-12-24T09:00:00.000Z' } });
  await api.POST('/v1/broadcasts/{id}/pause', { params: { path } });
  await api.POST('/v1/broadcasts/{id}/resume', { params: { path }, body: {} });
  await api.POST('/v1/broadcasts/{id}/cancel', { params: { path } });
  const recipients = await api.GET('/v1/broadcasts/{id}/recipients', { params: { path, query: { status: 'failed', limit: 100 } } });
  const reason: Schemas['BroadcastRecipient']['exclusion_reason'] | undefined = recipients.data?.data[0]?.exclusion_reason;
  void reason;
}

export async function agents(): Promise<void> {
  const input: paths['/v1/ai-agents']['post']['requestBody']['content']['application/json'] = {
    name: 'Sales bot',
    type: 'sales',
    scope: { sources: ['chatapp'] },
    behavior: { strategy: 'when_unassigned', replyDelayMs: 2000 },
    aiConfig: { instructions: 'Be brief.' },
  };
  await api.GET('/v1/ai-agents', { params: { query: { type: 'sales' } } });
  await api.POST('/v1/ai-agents', { body: input });
  await api.GET('/v1/ai-agents/runs', { params: { query: { status: 'completed' } } });
  await api.GET('/v1/ai-agents/runs/{runId}', { params: { path: { runId: id } } });
  await api.GET('/v1/ai-agents/{id}', { params: { path } });
  await api.PUT('/v1/ai-agents/{id}', { params: { path }, body: input });
  await api.PATCH('/v1/ai-agents/{id}', { params: { path }, body: input });
  await api.DELETE('/v1/ai-agents/{id}', { params: { path } });
  await api.POST('/v1/ai-agents/{id}/activate', { params: { path } });
  await api.POST('/v1/ai-agents/{id}/deactivate', { params: { path } });
}

export async function webhooks(): Promise<void> {
  await api.GET('/v1/webhooks');
  const created = await api.POST('/v1/webhooks', {
    body: { name: 'CRM sync', url: 'https://hooks.example.com/crm', events: ['contact.created'] },
  });
  const secret: string | undefined = created.data?.data.secret;
  await api.GET('/v1/webhooks/event-types');
  await api.GET('/v1/webhooks/{id}', { params: { path } });
  await api.PATCH('/v1/webhooks/{id}', { params: { path }, body: { status: 'active' } });
  await api.DELETE('/v1/webhooks/{id}', { params: { path } });
  await api.GET('/v1/webhooks/{id}/deliveries', { params: { path } });
  const rotated = await api.POST('/v1/webhooks/{id}/rotate-secret', { params: { path }, body: { overlap_hours: 24 } });
  const next: string | undefined = rotated.data?.data.secret;
  await api.POST('/v1/webhooks/{id}/test', { params: { path }, body: {} });
  await api.GET('/v1/webhooks/deliveries/{deliveryId}', { params: { path: { deliveryId: id } } });
  await api.POST('/v1/webhooks/deliveries/{deliveryId}/redeliver', { params: { path: { deliveryId: id } } });
  const replay = await api.POST('/v1/webhooks/{id}/replay', {
    params: { path },
    body: { since: '2026-03-02T13:30:00.000Z', types: ['contact.created'] },
  });
  const replayed: number | undefined = replay.data?.data.matched;
  await api.GET('/v1/webhooks/{id}/replays/{replayId}', { params: { path: { id, replayId: id } } });
  const events = await api.GET('/v1/events', { params: { query: { type: ['contact.created', 'deal.updated'], object_id: id } } });
  const requestId: string | null | undefined = events.data?.data[0]?.request_id;
  await api.GET('/v1/events/{id}', { params: { path } });
  void secret;
  void next;
  void replayed;
  void requestId;
}

export async function account(): Promise<void> {
  await api.GET('/v1/me');
  await api.GET('/v1/members');
  await api.GET('/v1/custom-fields');
  await api.GET('/v1/tags');
  const keys = await api.GET('/v1/api-keys', { params: { query: { limit: 10 } } });
  const status: 'active' | 'revoked' | 'expired' | undefined = keys.data?.data[0]?.status;
  await api.DELETE('/v1/api-keys/{id}', { params: { path: { id: keys.data?.data[0]?.id ?? 'key_0' } } });
  void status;
  // Discontinued: the only answer is the 410 error.
  const credits = await api.GET('/v1/message-credits');
  const gone: 'FEATURE_DISCONTINUED' | string | undefined = credits.error?.error.code;
  await api.GET('/v1/message-credits/transactions');
  await api.POST('/v1/message-credits/purchase');
  void gone;
}
