import { hostname } from 'node:os';
import { outsideRequest, randomToken } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { startFields } from '../domain/broadcasts/actions';
import { finishedEvents, startedEvents } from '../domain/broadcasts/broadcast-events';
import { checkLaunch } from '../domain/broadcasts/launch-checks';
import { LaneSender } from './lane-sender';
import { buildRecipientList } from './recipient-list';

/** While broadcasts are in flight, how often a replica looks for work a crashed replica left (and for due ones). */
const BUSY_CHECK_MS = 1_000;
/** With nothing in flight, the longest sleep; launches on this replica wake it at once. */
const IDLE_CHECK_MS = 30_000;

/**
 * The broadcast worker of one messaging replica: it launches scheduled broadcasts when their time comes, builds
 * recipient lists, and sends lanes (one number of one broadcast each) it holds by lease. Any replica can do any
 * of it; leases and conditional updates make sure each piece is done by one at a time.
 */
export class BroadcastSender {
  readonly owner = `${hostname()}:${process.pid}:${randomToken(6)}`;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly deps: MessagingDeps) {}

  start(): void {
    this.wake();
  }

  /** Runs a pass now (or right after the current one). */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    // A launch request wakes the worker; the pass (audience streams, sends) is not bound by that request's deadline.
    this.ticking = outsideRequest(() => this.tick())
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'broadcast worker pass failed'))
      .then(async (delay) => {
        this.ticking = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        } else if (!this.stopped) this.timer = setTimeout(() => this.wake(), delay ?? BUSY_CHECK_MS);
      });
  }

  /** Stops taking work and lets the lanes in flight finish their current message; their leases are released. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    await Promise.all(this.running.values());
  }

  private async tick(): Promise<number> {
    await this.launchDue();
    await this.buildLists();
    await this.claimLanes();
    const busy =
      this.running.size > 0 || (await this.deps.broadcasts.lanes.anyActive()) || (await this.deps.broadcasts.records.anyBuilding());
    if (busy) return BUSY_CHECK_MS;
    const next = await this.deps.broadcasts.records.nextScheduledAt();
    const untilNext = next ? next.getTime() - this.deps.now().getTime() : IDLE_CHECK_MS;
    return Math.max(10, Math.min(IDLE_CHECK_MS, untilNext));
  }

  /** Scheduled broadcasts whose time came: launched when the checks pass, `failed` with the reason otherwise. */
  private async launchDue(): Promise<void> {
    const { records } = this.deps.broadcasts;
    for (const broadcast of await records.dueScheduled(this.deps.now(), 20)) {
      const at = this.deps.now();
      try {
        await checkLaunch(this.deps, broadcast, { override: broadcast.warmup_override });
        const set = { ...startFields(this.deps, broadcast.warmup_override), updated_at: at };
        await records.transition(broadcast.id, ['scheduled'], set, broadcast.rev, startedEvents({ ...broadcast, ...set }, at));
      } catch (error) {
        const reason = error instanceof Error ? error : new Error(String(error));
        const code = (error as { code?: string }).code ?? 'INTERNAL_ERROR';
        this.deps.logger.warn({ broadcast: broadcast.id, code }, 'scheduled broadcast failed its launch checks');
        const set = { status: 'failed' as const, error: { code, message: reason.message }, completed_at: at, updated_at: at };
        await records.transition(broadcast.id, ['scheduled'], set, broadcast.rev, finishedEvents({ ...broadcast, ...set }, at));
      }
    }
  }

  private async buildLists(): Promise<void> {
    for (const broadcast of await this.deps.broadcasts.records.awaitingRecipients(this.deps.now(), 5)) {
      if (this.stopped) return;
      await buildRecipientList(this.deps, broadcast);
    }
  }

  private async claimLanes(): Promise<void> {
    const { lanes, settings } = this.deps.broadcasts;
    while (!this.stopped && this.running.size < settings.maxLanes) {
      const now = this.deps.now();
      const lane = await lanes.claim(this.owner, now, new Date(now.getTime() + settings.leaseMs));
      if (!lane) return;
      const run = new LaneSender(this.deps, lane, this.owner, () => this.stopped)
        .run()
        .catch((error: unknown) => this.deps.logger.error({ err: error, lane: lane.id }, 'broadcast lane failed'))
        .finally(() => {
          this.running.delete(lane.id);
          this.wake();
        });
      this.running.set(lane.id, run);
    }
  }
}
