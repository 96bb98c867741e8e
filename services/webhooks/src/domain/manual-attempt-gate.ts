import { AppError } from '@crm/shared';

/**
 * Bounds the test sends and redeliveries (#88, #90) one organization has in flight on this replica. Each holds a
 * gateway request open for up to one attempt, so without a cap one tenant could hold the gateway's in-flight
 * capacity for everyone. Beyond the cap the call is refused at once with RATE_LIMITED and a Retry-After of one
 * attempt timeout, before anything is stored.
 */
export class ManualAttemptGate {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly options: { perOrganization: number; attemptTimeoutMs: number }) {}

  async run<T>(orgId: string, attempt: () => Promise<T>): Promise<T> {
    const held = this.inFlight.get(orgId) ?? 0;
    if (held >= this.options.perOrganization) {
      throw new AppError(
        'RATE_LIMITED',
        `The organization already has ${held} test sends or redeliveries in flight, the most it may have; retry when they end.`,
        { retry_after_seconds: Math.max(1, Math.ceil(this.options.attemptTimeoutMs / 1000)) },
      );
    }
    this.inFlight.set(orgId, held + 1);
    try {
      return await attempt();
    } finally {
      const left = (this.inFlight.get(orgId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(orgId, left);
      else this.inFlight.delete(orgId);
    }
  }
}
