import { describe, expect, inject, it } from 'vitest';
import { uniqueName } from '../../../../test/support/integration';
import { logLines } from '../../../../test/support/log-lines';
import { createLogger } from '../logger';
import { EventBus } from './event-bus';
import { kafkaFromEnv, kafkaSettings } from './kafka-client';

describe('EventBus at start', () => {
  it('lets services that start together create one topic and publish to it, with nothing logged', async () => {
    const { stream, lines } = logLines();
    const logger = createLogger('event-bus-test', 'info', stream);
    const buses = Array.from(
      { length: 4 },
      (_, index) => new EventBus({ kafka: kafkaSettings(inject('integration')), clientId: `starter-${index}`, logger }),
    );
    const topic = uniqueName('ensure-topic');
    // They race to create it; the losers find it made (kafkajs logged the broker's refusal of their request).
    await Promise.all(buses.map((bus) => bus.ensureTopic(topic, 3)));
    // Each producer's first publish (kafkajs warned about its partitioner at the first one).
    await Promise.all(buses.map((bus, index) => bus.publish(topic, [{ key: `key-${index}`, value: '{}' }])));
    await Promise.all(buses.map((bus) => bus.close()));
    const admin = kafkaFromEnv(inject('integration'), { clientId: 'event-bus-test' }).admin();
    await admin.connect();
    try {
      const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
      expect(metadata?.name).toBe(topic);
      expect(metadata?.partitions).toHaveLength(3);
    } finally {
      await admin.disconnect();
    }
    expect(lines).toEqual([]);
  });
});
