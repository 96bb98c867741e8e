import { describe, expect, it } from 'vitest';
import { newEvent, toDomainEvent } from '../outbox/domain-event';
import { eachEventByKey, type ConsumedEvent } from './event-consumer';

type Received = ConsumedEvent<'message.received'>;

/** A `message.received` of conversation `key` at `offset` (only the fields the handler reads). */
const received = (key: string, offset: number): Received => ({
  event: toDomainEvent(newEvent('org_1', 'message.received', { object: { conversation_id: key } } as never)) as Received['event'],
  trace: {},
  offset: String(offset),
});

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('eachEventByKey', () => {
  it('handles one key in offset order and different keys at once, at most `concurrency` keys at a time', async () => {
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const handle = eachEventByKey(
      (consumed: Received) => consumed.event.data.object.conversation_id,
      {
        'message.received': async (consumed) => {
          running++;
          most = Math.max(most, running);
          await tick();
          log.push(`${consumed.event.data.object.conversation_id}@${consumed.offset}`);
          running--;
        },
      },
      2,
    );
    const events = [received('a', 1), received('b', 2), received('a', 3), received('c', 4), received('b', 5), received('a', 6)];
    await handle(events);
    expect(log).toHaveLength(6);
    for (const key of ['a', 'b', 'c']) {
      const offsets = log.filter((entry) => entry.startsWith(`${key}@`)).map((entry) => Number(entry.split('@')[1]));
      expect(offsets).toEqual([...offsets].sort((x, y) => x - y));
    }
    expect(most).toBe(2);
  });

  it('tries every key and then throws the failure, so the batch is delivered again', async () => {
    const handled: string[] = [];
    const handle = eachEventByKey(
      (consumed: Received) => consumed.event.data.object.conversation_id,
      {
        'message.received': async (consumed) => {
          await tick();
          if (consumed.offset === '1') throw new Error('store unavailable');
          handled.push(consumed.offset);
        },
      },
      4,
    );
    await expect(handle([received('a', 1), received('a', 2), received('b', 3)])).rejects.toThrow('store unavailable');
    // The failed key stops at its failure (order within it is kept); the other key was handled.
    expect(handled).toEqual(['3']);
  });
});
