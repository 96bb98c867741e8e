import type { ReceivedEvent } from './events';

/**
 * Delivery is at-least-once (spec §6 rule 1): the same event may be published more than once. Consumers
 * deduplicate by event id, and so do these tests: the first copy of each id, in arrival order.
 */
export function distinctEvents(events: ReceivedEvent[], predicate: (event: ReceivedEvent) => boolean = () => true): ReceivedEvent[] {
  const seen = new Set<string>();
  return events.filter((event) => {
    if (seen.has(event.id) || !predicate(event)) return false;
    seen.add(event.id);
    return true;
  });
}
