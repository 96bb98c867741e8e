import type { WebhookDeps } from '../domain/deps';
import type { DeliveryRecord } from '../repository/delivery.repository';

/**
 * Keeps the leases of the deliveries this replica holds in memory: queued behind a busy endpoint, a delivery may
 * wait longer than its lease, and another replica would then send it too. Every quarter of the lease, the leases
 * expiring within half of it are extended in one update; an attempt about to start with less than the timeout
 * left is extended first.
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: WebhookDeps,
    private readonly held: () => Iterable<DeliveryRecord>,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.renewExpiring(), this.deps.settings.leaseMs / 4);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Undefined when the lease outlasts the attempt: the common case costs no promise. */
  ensureFor(delivery: DeliveryRecord): Promise<void> | undefined {
    const left = (delivery.lease_until?.getTime() ?? 0) - Date.now();
    return left < this.deps.settings.timeoutMs + 1_000 ? this.renew([delivery]) : undefined;
  }

  private async renewExpiring(): Promise<void> {
    const soon = Date.now() + this.deps.settings.leaseMs / 2;
    const expiring = [...this.held()].filter((delivery) => (delivery.lease_until?.getTime() ?? 0) < soon);
    try {
      await this.renew(expiring);
    } catch (error) {
      this.deps.logger.error({ err: error, deliveries: expiring.length }, 'renewing delivery leases failed; retrying at the next tick');
    }
  }

  private async renew(deliveries: DeliveryRecord[]): Promise<void> {
    if (deliveries.length === 0) return;
    const until = new Date(Date.now() + this.deps.settings.leaseMs);
    await this.deps.deliveries.renewLeases(
      deliveries.map((delivery) => delivery.id),
      this.deps.owner,
      until,
    );
    for (const delivery of deliveries) delivery.lease_until = until;
  }
}
