import { ContactServiceService } from '@crm/proto/gen/crm/v1/contacts';
import { createAsyncClient, kafkaFromEnv } from '@crm/shared';
import { MongoClient } from 'mongodb';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../deploy/lib/ports';
import { startService, waitUntil, type ServiceProcess } from '../../deploy/lib/processes';
import { createOrganization } from '../../services/crm/src/domain/admin';
import { eventsOf } from '../support/events';
import { crmAdmin } from '../support/orgs';
import { testCaller, testSystem } from '../support/system';

const running: ServiceProcess[] = [];
afterAll(async () => {
  for (const process of running) await process.stop('SIGKILL');
});

/**
 * The outbox guarantee: a committed write never loses its event, even if the process dies between the
 * write and the publish. A CRM process whose relay is off commits a contact and is killed with SIGKILL; the
 * event waits in the record's outbox; a fresh CRM process publishes it, with the same event id.
 */
describe('outbox', () => {
  it('publishes the event of a committed write after the writer was killed before publishing', async () => {
    const { env, logDir } = testSystem();
    // A private database and topic: the run's own CRM relay must not publish on the victim's behalf.
    const dbName = `${env.CRM_DB_NAME}_crash`;
    const topic = `${env.EVENTS_TOPIC}.crash`;
    const port = await freePort();
    // Its own consumer group too: a killed member of the run's group would stall the run's CRM consumer for a session timeout.
    const base = {
      ...env,
      CRM_DB_NAME: dbName,
      EVENTS_TOPIC: topic,
      CRM_CONSUMER_GROUP: `${env.CRM_CONSUMER_GROUP}-crash`,
      CRM_GRPC_PORT: String(port),
      LOG_LEVEL: 'warn',
    };

    const victim = startService(
      'crm-victim',
      'services/crm/src/main.ts',
      { ...base, OUTBOX_RELAY_ENABLED: 'false' },
      join(logDir, 'crm-victim.log'),
    );
    running.push(victim);
    const client = createAsyncClient(ContactServiceService, `127.0.0.1:${port}`, 'crm.v1.ContactService', { identity: testCaller() });
    await waitUntil(
      'crm victim',
      async () => (
        await client.listContacts({
          org_id: 'org_AAAAAAAAAAAAAAAAAAAAAA',
          sort: 'created_at',
          order: 'desc',
          page: { limit: 1, after: undefined },
          filter: undefined,
        }),
        true
      ),
      {
        timeoutMs: 60_000,
        process: victim,
      },
    );

    const deps = await crmAdmin();
    const organization = await createOrganization(deps, { name: 'Crash org' });
    const contact = await client.createContact({ org_id: organization.id, id: '', body: { name: 'Survivor' } });
    await victim.stop('SIGKILL');
    client.close();

    const mongo = await new MongoClient(env.MONGODB_URI ?? '').connect();
    try {
      const stored = await mongo
        .db(dbName)
        .collection('contacts')
        .findOne({ _id: contact.id as never });
      expect(stored?.name).toBe('Survivor');
      const pending = stored?._outbox as Array<{ id: string; type: string }>;
      expect(pending.map((entry) => entry.type)).toEqual(['contact.created']);

      const events = await eventsOf(organization.id, topic);
      try {
        const rescuer = startService(
          'crm-rescuer',
          'services/crm/src/main.ts',
          { ...base, CRM_GRPC_PORT: String(await freePort()) },
          join(logDir, 'crm-rescuer.log'),
        );
        running.push(rescuer);
        const received = await events.waitFor((list) => list.length >= 1, 60_000);
        expect(received[0]).toMatchObject({ id: pending[0]!.id, type: 'contact.created', org_id: organization.id });
        expect(received[0]!.data.object).toMatchObject({ id: contact.id, name: 'Survivor' });
        // Published entries leave the outbox.
        await waitUntil(
          'outbox drained',
          async () =>
            (
              (
                await mongo
                  .db(dbName)
                  .collection('contacts')
                  .findOne({ _id: contact.id as never })
              )?._outbox as unknown[]
            ).length === 0,
          {
            timeoutMs: 10_000,
          },
        );
      } finally {
        await events.stop();
      }
    } finally {
      await mongo.db(dbName).dropDatabase();
      await mongo.close();
      const admin = kafkaFromEnv(env, { clientId: 'outbox-crash-test' }).admin();
      await admin.connect();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    }
  }, 180_000);
});
