import type { ObservableResult } from '@opentelemetry/api';
import type { Collection, Document } from 'mongodb';
import { cachedObservation, instruments } from '../telemetry/metrics';

const outbox = instruments((meter) => ({
  pending: meter.createObservableGauge('crm_outbox_pending_events', {
    description:
      'Events written but not yet acknowledged by Kafka, by collection. Every replica of a service reports the same count: aggregate with max.',
  }),
  published: meter.createCounter('crm_outbox_published_events_total', {
    description: 'Events the outbox relay published to Kafka (acks: all) and removed from their records.',
  }),
}));

export function countPublished(events: number): void {
  if (events > 0) outbox().published.add(events);
}

/**
 * Reports the unpublished events of `collections` when scraped (at most every 5 s): a sum over the records the
 * `_outbox_pending` index finds, which are none when the relay keeps up. Returns the function that stops it.
 */
export function observePendingEvents(collections: Collection<Document>[]): () => void {
  const read = cachedObservation(
    () =>
      Promise.all(
        collections.map(async (collection) => {
          const [row] = await collection
            .aggregate<{ events: number }>([
              { $match: { _outbox_pending: true } },
              { $group: { _id: null, events: { $sum: { $size: { $ifNull: ['$_outbox', []] } } } } },
            ])
            .toArray();
          return { collection: collection.collectionName, events: row?.events ?? 0 };
        }),
      ),
    5_000,
  );
  const report = async (result: ObservableResult): Promise<void> => {
    for (const { collection, events } of (await read()) ?? []) result.observe(events, { collection });
  };
  outbox().pending.addCallback(report);
  return () => outbox().pending.removeCallback(report);
}
