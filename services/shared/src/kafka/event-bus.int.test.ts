import { describe, expect, inject, it } from 'vitest';
import { uniqueName } from '../../../../test/support/integration';
import { logLines } from '../../../../test/support/log-lines';
import { createLogger } from '../logger';
import { EventBus } from './event-bus';
import { kafkaFromEnv, kafkaSettings } from './kafka-client';

describe('EventBus.ensureTopic', () => {
  it('lets services that start together create one topic: each succeeds, the topic exists once, and nothing is logged', async () => {
    const { stream, lines } = logLines();
    const logger = createLogger('event-bus-test', 'info', stream);
    const buses = Array.from(
      { length: 4 },
      (_, index) => new EventBus({ kafka: kafkaSettings(inject('integration')), clientId: `starter-${index}`, logger }),
    );
    const topic = uniqueName('ensure-topic');
    await Promise.all(buses.map((bus) => bus.ensureTopic(topic, 3)));
    const admin = kafkaFromEnv(inject('integration'), { clientId: 'event-bus-test' }).admin();
    await admin.connect();
    try {
      const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
      expect(metadata).toMatchObject({ name: topic, partitions: expect.any(Array) });
      expect(metadata!.partitions).toHaveLength(3);
    } finally {
      await admin.disconnect();
    }
    expect(lines).toEqual([]);
  });
});
