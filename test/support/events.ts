import { randomUUID } from 'node:crypto';
import { kafkaFromEnv } from '@crm/shared';
import type { Consumer } from 'kafkajs';
import { contractViolation } from './event-contract';
import { testSystem } from './system';
import { createTestOrg, type TestOrg } from './orgs';

export interface ReceivedEvent {
  id: string;
  type: string;
  created_at: string;
  api_version: string;
  org_id: string;
  data: any;
}

/**
 * Reads the run's events topic from the beginning with its own consumer group and keeps the events of one
 * organization: what the services really published to Kafka.
 */
export async function eventsOf(orgId: string, topic?: string) {
  const { env } = testSystem();
  const kafka = kafkaFromEnv(env, { clientId: 'test-events' });
  const consumer: Consumer = kafka.consumer({ groupId: `test-${randomUUID()}`, maxWaitTimeInMs: 100 });
  const received: ReceivedEvent[] = [];
  const violations: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic: topic ?? env.EVENTS_TOPIC ?? '', fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const event = JSON.parse(message.value?.toString('utf8') ?? '{}') as ReceivedEvent;
      if (event.org_id !== orgId) return;
      received.push(event);
      const violation = contractViolation(event);
      if (violation) violations.push(violation);
    },
  });

  return {
    received,
    /** Waits until `predicate` holds for the events received so far; returns them. */
    async waitFor(predicate: (events: ReceivedEvent[]) => boolean, timeoutMs = 15_000): Promise<ReceivedEvent[]> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (violations.length > 0) throw new Error(`events that break the event catalogue:\n${violations.join('\n')}`);
        if (predicate(received)) return received;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`events did not arrive in ${timeoutMs} ms; got: ${received.map((event) => event.type).join(', ') || 'none'}`);
    },
    ofType: (type: string) => received.filter((event) => event.type === type),
    stop: () => consumer.disconnect(),
  };
}

export type EventLog = Awaited<ReturnType<typeof eventsOf>>;

/**
 * A fresh organization and the log of its events, for a describe block's beforeAll, which returns `stop` as its
 * teardown: `beforeAll(async () => { ({ org, events } = await orgWithEvents()); return events.stop; })`.
 */
export async function orgWithEvents(options?: Parameters<typeof createTestOrg>[0]): Promise<{ org: TestOrg; events: EventLog }> {
  const org = await createTestOrg(options);
  return { org, events: await eventsOf(org.orgId) };
}
