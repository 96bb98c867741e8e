import { cachedObservation, instruments } from '@crm/shared';

const broadcasts = instruments((meter) => ({
  recipients: meter.createCounter('crm_broadcast_recipients_total', {
    description: 'Broadcast recipients whose send finished, by outcome (sent: the provider took it; failed: for good).',
  }),
  lanes: meter.createObservableGauge('crm_broadcast_active_lanes', {
    description:
      'Lanes (one number of one sending broadcast) by whether a replica holds their lease (held="false": waiting for a replica, or its holder died). Every replica reports the same count: aggregate with max.',
  }),
}));

export function countRecipient(outcome: 'sent' | 'failed'): void {
  broadcasts().recipients.add(1, { outcome });
}

/**
 * Reports the active lanes when scraped (at most every 5 s; two counts on the `{state, lease_until}` index).
 * A lane nobody holds for longer than a lease is a broadcast that does not progress (docs/operations.md).
 */
export function observeLanes(lanes: { countDocuments(filter: Record<string, unknown>): Promise<number> }): void {
  const read = cachedObservation(async () => {
    const now = new Date();
    const [held, total] = await Promise.all([
      lanes.countDocuments({ state: 'active', lease_until: { $gte: now } }),
      lanes.countDocuments({ state: 'active' }),
    ]);
    return { held, unheld: total - held };
  }, 5_000);
  broadcasts().lanes.addCallback(async (result) => {
    const counts = await read();
    if (!counts) return;
    result.observe(counts.held, { held: 'true' });
    result.observe(counts.unheld, { held: 'false' });
  });
}
