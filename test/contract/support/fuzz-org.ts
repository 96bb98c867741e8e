import type { RawApi } from '../../support/api';
import { activeAgent, agentBody } from '../../support/agents';
import { addNumber, addTemplate, configureNumber, eventually, inbound, type TestNumber } from '../../support/messaging';
import { createTestOrg, type TestOrg } from '../../support/orgs';
import { startReceiver, type Receiver } from '../../support/webhook-receiver';

/**
 * The organisation the contract fuzz runs as: an enterprise plan and an all-scopes key, and records for every
 * operation to act on, grouped in named pools of ids. An operation that changes a record's state (delete, launch,
 * win, close…) gets its own pool of records in the state it starts from (fuzz-pools.ts), so that it succeeds at least
 * once per phase and never takes away the records the other operations read.
 */
export interface FuzzOrg {
  org: TestOrg;
  /** Pool name → ids (or tag names) of records in that pool. */
  pools: Record<string, string[]>;
  close(): Promise<void>;
}

/** How many records each state-changing operation gets: one per phase of the run, and some to spare. */
const SPARE = 6;
const times = <T>(count: number, make: (index: number) => Promise<T>): Promise<T[]> =>
  Promise.all(Array.from({ length: count }, (_unused, index) => make(index)));

async function created(api: RawApi, path: string, body: unknown, status = 201): Promise<any> {
  const answer = await api.post(path, body);
  if (answer.status !== status) throw new Error(`seeding: POST ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return answer.body.data;
}

async function acted(api: RawApi, path: string, status = 200, body: unknown = {}): Promise<any> {
  return created(api, path, body, status);
}

const ids = (records: Array<{ id: string }>): string[] => records.map((record) => record.id);

/** The conversations of one number (the list has no number filter). */
async function conversationsOf(org: TestOrg, number: TestNumber): Promise<Array<{ id: string; contact: { id: string } }>> {
  const page = await org.raw.get('/v1/conversations?channel=chatapp&limit=100');
  return (page.body.data as Array<{ id: string; contact: { id: string }; chatapp_instance: { id: string } | null }>).filter(
    (conversation) => conversation.chatapp_instance?.id === number.id,
  );
}

/** Contacts who wrote to `number` (so they have a chatapp id and an open conversation), tagged `tag`. */
async function writers(org: TestOrg, number: TestNumber, tag: string, count: number, prefix: string): Promise<string[]> {
  const phones = Array.from({ length: count }, (_unused, index) => `+1777${prefix}${String(index).padStart(4, '0')}`);
  for (const from of phones) await inbound(number, { from, text: `hello from ${from}`, name: `Writer ${from}` });
  const found = await eventually(`${count} writers of ${number.ref}`, async () => {
    const contacts = (await conversationsOf(org, number)).map((conversation) => conversation.contact.id);
    return contacts.length >= count ? contacts : undefined;
  });
  for (const id of found) await acted(org.raw, `/v1/contacts/${id}/tags`, 200, { tags: [tag] });
  return found;
}

async function seedCrm(org: TestOrg, pools: Record<string, string[]>): Promise<void> {
  const api = org.raw;
  const [company, ...companies] = await times(3, (i) => created(api, '/v1/companies', { name: `Fuzz company ${i}`, tags: ['vip'] }));
  pools.companies = ids([company, ...companies]);
  pools.companiesToDelete = ids(await times(SPARE, (i) => created(api, '/v1/companies', { name: `Doomed company ${i}` })));
  const contacts = await times(4, (i) =>
    created(api, '/v1/contacts', {
      name: `Fuzz contact ${i}`,
      tags: ['vip', 'lead'],
      company_id: company.id,
      email: `fuzz${i}@example.com`,
    }),
  );
  pools.contacts = ids(contacts);
  pools.contactsToDelete = ids(await times(SPARE, (i) => created(api, '/v1/contacts', { name: `Doomed contact ${i}` })));
  pools.tags = ['vip', 'lead'];
  // Merges: one survivor and duplicates for it, used by no other operation. Merging a duplicate into the survivor again
  // is idempotent (200), so every phase reaches the merge's logic; opt-outs are idempotent too.
  pools.mergeSurvivors = ids([await created(api, '/v1/contacts', { name: 'Merge survivor', tags: ['merge'] })]);
  pools.contactsToMerge = ids(
    await times(3 * SPARE, (i) => created(api, '/v1/contacts', { name: `Duplicate ${i}`, email: `duplicate${i}@example.com` })),
  );
  pools.contactsToOptOut = ids(await times(2, (i) => created(api, '/v1/contacts', { name: `Opting out ${i}` })));
  const funnel = await created(api, '/v1/funnels', {
    name: 'Fuzz pipeline',
    stages: [{ name: 'Lead' }, { name: 'Proposal' }, { name: 'Won' }],
  });
  pools.funnels = [funnel.id];
  pools.stages = ids(funnel.stages);
  // Where deals are transferred to: another funnel.
  const other = await created(api, '/v1/funnels', { name: 'Fuzz renewals', stages: [{ name: 'Renewal' }, { name: 'Signed' }] });
  pools.otherFunnels = [other.id];
  pools.otherStages = ids(other.stages);
  pools.stagesToDelete = ids(await times(SPARE, (i) => created(api, `/v1/funnels/${funnel.id}/stages`, { name: `Doomed stage ${i}` })));
  const deal = (title: string) =>
    created(api, '/v1/deals', { title, funnel_id: funnel.id, contact_ids: [contacts[0].id], company_id: company.id });
  pools.deals = ids(await times(3, (i) => deal(`Fuzz deal ${i}`)));
  for (const pool of ['dealsToWin', 'dealsToLose', 'dealsToDelete', 'dealsToTransfer'])
    pools[pool] = ids(await times(SPARE, (i) => deal(`${pool} ${i}`)));
  pools.dealsClosed = ids(await times(SPARE, (i) => deal(`Won deal ${i}`)));
  for (const id of pools.dealsClosed) await acted(api, `/v1/deals/${id}/win`);
  const contactId = contacts[0].id;
  const dealId = pools.deals[0]!;
  pools.noteContacts = [contactId];
  pools.noteDeals = [dealId];
  pools.contactNotes = ids(await times(2, (i) => created(api, `/v1/contacts/${contactId}/notes`, { content: `Note ${i}` })));
  pools.contactNotesToDelete = ids(await times(SPARE, (i) => created(api, `/v1/contacts/${contactId}/notes`, { content: `Doomed ${i}` })));
  pools.dealNotes = ids(await times(2, (i) => created(api, `/v1/deals/${dealId}/notes`, { content: `Note ${i}` })));
  pools.dealNotesToDelete = ids(await times(SPARE, (i) => created(api, `/v1/deals/${dealId}/notes`, { content: `Doomed ${i}` })));
  const task = (title: string) => created(api, '/v1/tasks', { title, contact_id: contactId });
  pools.tasks = ids(await times(3, (i) => task(`Fuzz task ${i}`)));
  pools.tasksToComplete = ids(await times(SPARE, (i) => task(`To complete ${i}`)));
  pools.tasksToDelete = ids(await times(SPARE, (i) => task(`Doomed task ${i}`)));
  pools.tasksDone = ids(await times(SPARE, (i) => task(`Done task ${i}`)));
  for (const id of pools.tasksDone) await acted(api, `/v1/tasks/${id}/complete`);
  pools.members = org.memberIds;
}

async function seedMessaging(org: TestOrg, pools: Record<string, string[]>): Promise<void> {
  const qrcode = await addNumber(org.orgId, 'qrcode', { name: 'Fuzz number', isDefault: true });
  const official = await addNumber(org.orgId, 'official', { name: 'Fuzz official' });
  // A number the provider lets send once an hour: its broadcasts stay sending (pause) or paused (resume).
  const slow = await addNumber(org.orgId, 'qrcode', { name: 'Slow number' });
  await configureNumber(slow, { rate_limit: { limit: 1, window_ms: 3_600_000 } });
  pools.instances = [qrcode.id, official.id];
  pools.qrcodeInstances = [qrcode.id];
  const template = await addTemplate(org.orgId, official.id, { name: 'fuzz_update', language: 'en_US', text: 'Your order shipped' });
  pools.templates = [String(template.id)];

  const chatters = await writers(org, qrcode, 'chatters', 8, '10');
  const conversations = await conversationsOf(org, qrcode);
  pools.conversations = ids(conversations.slice(0, 2));
  // Messages are sent to a contact who wrote, in its own conversation.
  pools.chatContacts = [conversations[0]!.contact.id];
  pools.chatConversations = [conversations[0]!.id];
  pools.conversationsToClose = ids(conversations.slice(2));
  pools.messages = ids((await org.raw.get(`/v1/conversations/${conversations[0]!.id}/messages`)).body.data);
  pools.contacts = [...(pools.contacts ?? []), ...chatters.slice(0, 2)];
  await writers(org, slow, 'slow-audience', 3, '20');

  const draft = (name: string, instance = qrcode.id, tag = 'chatters') =>
    created(org.raw, '/v1/broadcasts', {
      name,
      chatappInstanceIds: [instance],
      audience: { type: 'tags', tags: [tag] },
      message: { type: 'text', content: `Hello from ${name}` },
    });
  pools.broadcasts = ids(await times(2, (i) => draft(`Fuzz broadcast ${i}`)));
  for (const pool of ['broadcastsToLaunch', 'broadcastsToSchedule', 'broadcastsToDelete'])
    pools[pool] = ids(await times(SPARE, (i) => draft(`${pool} ${i}`)));
  const slowDrafts = ids(await times(2 * SPARE, (i) => draft(`Slow ${i}`, slow.id, 'slow-audience')));
  for (const id of slowDrafts) await acted(org.raw, `/v1/broadcasts/${id}/launch`, 202);
  pools.broadcastsSending = slowDrafts.slice(0, SPARE);
  pools.broadcastsPaused = slowDrafts.slice(SPARE);
  for (const id of pools.broadcastsPaused)
    await eventually(`broadcast ${id} to pause`, async () => (await org.raw.post(`/v1/broadcasts/${id}/pause`, undefined)).status === 200);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
  pools.broadcastsScheduled = ids(await times(SPARE, (i) => draft(`Scheduled ${i}`)));
  for (const id of pools.broadcastsScheduled) await acted(org.raw, `/v1/broadcasts/${id}/schedule`, 200, { scheduledAt: tomorrow });
  pools.broadcastsLaunched = [pools.broadcastsSending[0]!];

  // An agent that answers the QR number, so that runs exist; the others stay inactive.
  const answering = await activeAgent(org.client, { name: 'Fuzz responder', scope: { sources: ['chatapp'] } });
  await inbound(qrcode, { from: '+17779990000', text: 'what is the price?' });
  pools.runs = await eventually('an agent run', async () => {
    const runs = (await org.raw.get(`/v1/ai-agents/runs?agent_id=${answering.id}`)).body.data as Array<{ id: string }>;
    return runs.length > 0 ? ids(runs) : undefined;
  });
  await acted(org.raw, `/v1/ai-agents/${answering.id}/deactivate`);
  const agent = (name: string) => created(org.raw, '/v1/ai-agents', agentBody({ name }));
  pools.agents = [answering.id, ...ids(await times(2, (i) => agent(`Fuzz agent ${i}`)))];
  pools.agentsToDelete = ids(await times(SPARE, (i) => agent(`Doomed agent ${i}`)));
  pools.agentsToActivate = ids(await times(SPARE, (i) => agent(`Inactive agent ${i}`)));
  pools.agentsActive = ids(await times(SPARE, (i) => agent(`Active agent ${i}`)));
  for (const id of pools.agentsActive) await acted(org.raw, `/v1/ai-agents/${id}/activate`);
}

async function seedWebhooks(org: TestOrg, pools: Record<string, string[]>): Promise<Receiver> {
  const receiver = await startReceiver({ status: 200 });
  const hook = (name: string) => created(org.raw, '/v1/webhooks', { name, url: receiver.url, events: ['contact.created'] });
  pools.webhooks = ids(await times(2, (i) => hook(`Fuzz hook ${i}`)));
  pools.webhooksToDelete = ids(await times(SPARE, (i) => hook(`Doomed hook ${i}`)));
  for (const id of pools.webhooks) await acted(org.raw, `/v1/webhooks/${id}/test`);
  pools.deliveries = await eventually('webhook deliveries', async () => {
    const page = await org.raw.get(`/v1/webhooks/${pools.webhooks![0]}/deliveries`);
    return page.body.data?.length > 0 ? ids(page.body.data) : undefined;
  });
  return receiver;
}

/**
 * The event log and replays: stored events to read by id, and a subscription to replay to with a replay to follow.
 * Replays go to a subscription of one kind the run emits a few times (company.deleted), so that a replay of any
 * window queues a handful of deliveries, not the organisation's whole history; `types` is bound to that kind.
 */
async function seedEvents(org: TestOrg, pools: Record<string, string[]>, receiverUrl: string): Promise<void> {
  const api = org.raw;
  pools.replayKinds = ['company.deleted'];
  pools.replayWebhooks = ids([await created(api, '/v1/webhooks', { name: 'Fuzz replays', url: receiverUrl, events: pools.replayKinds })]);
  const since = new Date(Date.now() - 3_600_000).toISOString();
  pools.replays = ids([await created(api, `/v1/webhooks/${pools.replayWebhooks[0]}/replay`, { since }, 202)]);
  // The log is written from Kafka: the seeded records' events arrive within seconds.
  pools.events = await eventually('stored events', async () => {
    const page = await api.get('/v1/events?limit=20');
    return page.body.data?.length >= 20 ? ids(page.body.data) : undefined;
  });
}

export async function createFuzzOrg(): Promise<FuzzOrg> {
  const org = await createTestOrg({ plan: 'enterprise', name: 'Fuzz organisation' });
  const pools: Record<string, string[]> = {};
  await seedCrm(org, pools);
  await seedMessaging(org, pools);
  const receiver = await seedWebhooks(org, pools);
  await seedEvents(org, pools, receiver.url);
  // Keys to revoke, each with fewer scopes than the fuzz's key; never the fuzz's own key, which would answer the rest
  // of the run 401.
  pools.apiKeysToRevoke = await times(SPARE, async () => (await org.keyWith(['read:contacts'])).keyId);
  return { org, pools, close: () => receiver.close() };
}
