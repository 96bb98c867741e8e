import { AppError } from '@crm/shared/core';

/** Who a request counts against while its key is not yet known (its first lookup is under way). */
const UNATTRIBUTED = '';

export interface InflightLimits {
  /** Open requests of this process in all (the last guard); 0: no cap. */
  max: number;
  /** Open requests of one organization, and of the requests whose key is not yet known; 0: no cap. */
  perOrg: number;
}

/**
 * Open requests of this gateway process, in all and per organization, from arrival to the response's end. One
 * organization holds at most `perOrg` of them, so its flood cannot fill the process-wide `max` and have another
 * organization refused: `max` is reached only when several are at their caps together. A request whose key is
 * not yet verified here counts as unattributed (with the same cap) until its organization is known (attribute).
 * A request over its organization's cap is refused 429 RATE_LIMITED (`policy: "inflight"`: its own limit); one over
 * the process's (or over the unattributed requests' cap), 503 SERVICE_UNAVAILABLE. Both with Retry-After: 1, each
 * the same error object every time (answered from pre-rendered JSON: prerendered-refusal.ts).
 */
export class InflightRequests {
  private total = 0;
  private readonly owners = new Map<string, number>();
  /** Each counted request's owner, by the raw request. */
  private readonly ownerOf = new WeakMap<object, string>();

  private readonly orgRefusal: AppError;
  private readonly processRefusal = new AppError('SERVICE_UNAVAILABLE', 'The API is at capacity; retry after the indicated time.', {
    retry_after_seconds: 1,
  });

  constructor(private readonly limits: InflightLimits) {
    this.orgRefusal = new AppError(
      'RATE_LIMITED',
      `This organization already has ${limits.perOrg} requests open at this gateway process; retry after the indicated time.`,
      { policy: 'inflight', limit: limits.perOrg, retry_after_seconds: 1 },
    );
  }

  /** Counts `request` against `orgId` (undefined: not yet known), or returns its refusal (then it is not counted). */
  enter(request: object, orgId: string | undefined): AppError | undefined {
    const owner = orgId ?? UNATTRIBUTED;
    if (this.atOwnCap(owner)) return owner === UNATTRIBUTED ? this.processRefusal : this.orgRefusal;
    if (this.limits.max > 0 && this.total >= this.limits.max) return this.processRefusal;
    this.total += 1;
    this.add(owner, 1);
    this.ownerOf.set(request, owner);
    return undefined;
  }

  /** Moves an unattributed request to its organization once its key is verified; the refusal when that one is at its cap. */
  attribute(request: object, orgId: string): AppError | undefined {
    if (this.ownerOf.get(request) !== UNATTRIBUTED) return undefined;
    if (this.atOwnCap(orgId)) return this.orgRefusal;
    this.add(UNATTRIBUTED, -1);
    this.add(orgId, 1);
    this.ownerOf.set(request, orgId);
    return undefined;
  }

  /** The request has ended (answered, failed, or its client gone). */
  leave(request: object): void {
    const owner = this.ownerOf.get(request);
    if (owner === undefined) return;
    this.ownerOf.delete(request);
    this.total -= 1;
    this.add(owner, -1);
  }

  /** Open requests of `orgId`. */
  countOf(orgId: string): number {
    return this.owners.get(orgId) ?? 0;
  }

  private atOwnCap(owner: string): boolean {
    return this.limits.perOrg > 0 && this.countOf(owner) >= this.limits.perOrg;
  }

  private add(owner: string, delta: number): void {
    const count = this.countOf(owner) + delta;
    if (count > 0) this.owners.set(owner, count);
    else this.owners.delete(owner);
  }
}
