import { ContactServiceService } from '@crm/proto/gen/crm/v1/contacts';
import { DealServiceService } from '@crm/proto/gen/crm/v1/deals';
import { NoteServiceService } from '@crm/proto/gen/crm/v1/notes';
import { createAsyncClient, kafkaFromEnv } from '@crm/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedWebhooks } from '../support/isolated-webhooks';
import { eventsOf } from '../support/events';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { createFunnel } from '../support/pipelines';
import { testCaller, testSystem } from '../support/system';
import { eventually, sleep, startReceiver } from '../support/webhook-receiver';

/**
 * Several replicas of a service write the same records with no lock between them: a revision-conditional update
 * is the whole concurrency control (services/shared/src/mongo/store.ts). The test system runs two CRM replicas;
 * here each write is sent straight to one of them, alternately, so both certainly race on every record.
 */
const crmReplicas = () => (testSystem().env.CRM_GRPC_URL ?? '').split(',');

function perReplica<D extends Parameters<typeof createAsyncClient>[0]>(definition: D, name: string) {
  const clients = crmReplicas().map((address) => createAsyncClient(definition, address, name, { identity: testCaller() }));
  return { at: (index: number) => clients[index % clients.length]!, close: () => clients.forEach((client) => client.close()) };
}

const contacts = perReplica(ContactServiceService, 'crm.v1.ContactService');
const deals = perReplica(DealServiceService, 'crm.v1.DealService');
const notes = perReplica(NoteServiceService, 'crm.v1.NoteService');
afterAll(() => [contacts, deals, notes].forEach((clients) => clients.close()));

describe('two CRM replicas writing the same records', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createTestOrg();
  });

  it('runs two replicas', () => {
    expect(crmReplicas()).toHaveLength(2);
  });

  it('keeps all of 30 tags added concurrently to one contact through both replicas', async () => {
    const contact = (await org.client.POST('/v1/contacts', { body: { name: 'Tagged Twice' } })).data!.data.id as string;
    const tags = Array.from({ length: 30 }, (_, i) => `t${i}`);
    await Promise.all(tags.map((tag, i) => contacts.at(i).addContactTags({ org_id: org.orgId, id: contact, tags: [tag] })));
    const stored = (await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contact } } })).data!.data;
    expect([...stored.tags].sort()).toEqual([...tags].sort());
  });

  it('keeps every field of concurrent edits of one deal made through both replicas', async () => {
    await createFunnel(org.client, { name: 'Replicas', stages: [{ name: 'A' }, { name: 'B' }] });
    const deal = (await org.client.POST('/v1/deals', { body: { title: 'Contested' } })).data!.data.id as string;
    const edits: Array<Record<string, unknown>> = [
      { value: 1000 },
      { probability: 70 },
      { description: 'edited on both' },
      { expected_close_date: '2027-01-15' },
      { tags: ['replicated'] },
      { title: 'Contested, edited' },
    ];
    await Promise.all(edits.map((body, i) => deals.at(i).updateDeal({ org_id: org.orgId, id: deal, body })));
    const stored = (await org.client.GET('/v1/deals/{id}', { params: { path: { id: deal } } })).data!.data;
    expect(stored).toMatchObject({
      value: 1000,
      probability: 70,
      description: 'edited on both',
      expected_close_date: expect.stringMatching(/^2027-01-15/),
      tags: ['replicated'],
      title: 'Contested, edited',
    });
  });

  it("publishes each event of records written through both replicas once, a record's creation before its changes", async () => {
    const other = await createTestOrg();
    const events = await eventsOf(other.orgId);
    try {
      // Each contact is created through one replica (its outbox leased to that replica's relay by the insert)
      // and gets 6 tags at once through both: the other replica appends events while the record may be leased.
      const created = await Promise.all(
        Array.from({ length: 8 }, (_, i) => contacts.at(i).createContact({ org_id: other.orgId, id: '', body: { name: `Relayed ${i}` } })),
      );
      const tags = Array.from({ length: 6 }, (_, i) => `r${i}`);
      await Promise.all(
        created.flatMap((contact) =>
          tags.map((tag, i) => contacts.at(i).addContactTags({ org_id: other.orgId, id: contact.id, tags: [tag] })),
        ),
      );
      const ofContact = (id: string) => events.received.filter((event) => event.data?.object?.id === id || event.data?.contact?.id === id);
      await events.waitFor(
        () => created.every((contact) => ofContact(contact.id).filter((e) => e.type === 'contact.tag.added').length >= 6),
        60_000,
      );

      expect(new Set(events.received.map((event) => event.id)).size).toBe(events.received.length);
      for (const contact of created) {
        const own = ofContact(contact.id);
        expect(own[0]?.type).toBe('contact.created');
        expect(own.filter((event) => event.type === 'contact.created')).toHaveLength(1);
        const added = own.filter((event) => event.type === 'contact.tag.added').map((event) => event.data.tag as string);
        expect(added.sort()).toEqual(tags);
      }
    } finally {
      await events.stop();
    }
  });

  it('counts 24 notes created concurrently through both replicas', async () => {
    const contact = (await org.client.POST('/v1/contacts', { body: { name: 'Noted Twice' } })).data!.data.id as string;
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        notes.at(i).createNote({ org_id: org.orgId, parent: { contact_id: contact }, id: '', body: { content: `note ${i}` } }),
      ),
    );
    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contact } } })).data!.data.notes_count).toBe(24);
    expect(
      (await org.client.GET('/v1/contacts/{id}/notes', { params: { path: { id: contact }, query: { limit: 100 } } })).data!.data,
    ).toHaveLength(24);
  });

  it('keeps funnel totals exact under concurrent creates and moves through both replicas', async () => {
    const other = await createTestOrg();
    const funnel = await createFunnel(other.client, { name: 'Totals', stages: [{ name: 'Lead' }, { name: 'Won' }] });
    const [lead, won] = funnel.stages as Array<{ id: string }>;
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        deals.at(i).createDeal({ org_id: other.orgId, id: '', body: { title: `Deal ${i}`, value: 100 + i, stage_id: lead!.id } }),
      ),
    );
    // Half move to the second stage, each move sent to the other replica than its create.
    await Promise.all(
      created.slice(0, 10).map((deal, i) => deals.at(i + 1).moveDeal({ org_id: other.orgId, id: deal.id, body: { stage_id: won!.id } })),
    );
    const totals = (await other.client.GET('/v1/funnels/{id}', { params: { path: { id: funnel.id } } })).data!.data;
    const sum = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => 100 + from + i).reduce((a, b) => a + b, 0);
    expect(totals).toMatchObject({ total_deals: 20, total_value: sum(0, 20) });
    expect(totals.stages.map((stage: { total_deals: number; total_value: number }) => [stage.total_deals, stage.total_value])).toEqual([
      [10, sum(10, 20)],
      [10, sum(0, 10)],
    ]);
  });
});

describe('two webhook replicas sharing the consumer group and the retry queue', () => {
  it('delivers each event once per subscription, none lost, while one replica is SIGKILLed mid-stream', { timeout: 180_000 }, async () => {
    const org = await createTestOrg();
    const receiver = await startReceiver({ status: 200 });
    const { replicas, consumerGroup, dropDatabase } = await isolatedWebhooks({ replicas: 2, name: 'pair' });
    const running = await Promise.all(replicas.map((replica) => replica.start()));
    try {
      await replicas[0]!.client.createWebhook({
        org_id: org.orgId,
        id: '',
        body: { name: 'pair', url: receiver.url, events: ['contact.created'] },
      });
      // Both replicas joined the group: the partitions are shared.
      await eventually(
        async () => ((await groupMembers(consumerGroup)) === 2 ? true : undefined),
        60_000,
        'two members in the consumer group',
      );
      await org.client.POST('/v1/contacts', { body: { name: 'Warm Up' } });
      await receiver.waitFor((all) => all.length >= 1, 60_000);
      const warmUps = receiver.received.length;

      // A steady stream (about 25 writes/s); the first replica dies a third of the way through.
      const count = 60;
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        ids.push((await org.client.POST('/v1/contacts', { body: { name: `Stream ${i}` } })).data!.data.id as string);
        if (i === count / 3) running[0]!.child.kill('SIGKILL');
        await sleep(40);
      }
      await running[0]!.exited;

      const deliveredIds = () =>
        new Set(receiver.received.filter((request) => request.answered === 200).map((request) => request.event.data?.object?.id as string));
      await eventually(
        async () => (ids.every((id) => deliveredIds().has(id)) ? true : undefined),
        120_000,
        'every event delivered by the surviving replica',
      );

      const requests = receiver.received.slice(warmUps).filter((request) => ids.includes(request.event.data?.object?.id));
      console.log(
        `webhook replicas: ${count} events, ${requests.length} requests, ${requests.length - count} duplicates after a SIGKILL mid-stream`,
      );
      // One delivery record per event and subscription, whichever replica stored it.
      const webhook = (await replicas[1]!.client.listWebhooks({ org_id: org.orgId, page: { limit: 1, after: undefined } })).items[0]!;
      const log = await replicas[1]!.client.listDeliveries({
        org_id: org.orgId,
        webhook_id: webhook.id,
        page: { limit: 200, after: undefined },
        filter: {},
      });
      expect(log.items).toHaveLength(count + warmUps);
      expect(new Set(log.items.map((item) => item.event_id)).size).toBe(count + warmUps);
      expect(log.items.every((item) => item.status === 'succeeded')).toBe(true);
    } finally {
      for (const process of running) await process.stop('SIGKILL');
      await receiver.close();
      await dropDatabase();
    }
  });
});

async function groupMembers(groupId: string): Promise<number> {
  const admin = kafkaFromEnv(testSystem().env, { clientId: 'replicas-test' }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    return groups[0]?.state === 'Stable' ? (groups[0]?.members.length ?? 0) : 0;
  } finally {
    await admin.disconnect();
  }
}
