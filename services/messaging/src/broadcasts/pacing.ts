import type { SendProfile } from '@crm/shared/schemas';

/**
 * Messages per second one number sends for a broadcast, by send profile. QR-code numbers are personal accounts
 * that get banned when they send like machines, so they go slowly; official numbers are limited by the provider
 * (80 messages/s on the cloud API) and by their quality rating, so `aggressive` stays below that ceiling.
 */
export const SEND_RATES: Record<SendProfile, { qrcode: number; official: number }> = {
  conservative: { qrcode: 0.2, official: 10 },
  moderate: { qrcode: 0.5, official: 30 },
  aggressive: { qrcode: 1, official: 60 },
};

/**
 * The most one number may ever send in any second, a catch-up included: the cloud API's 80 messages/s for an
 * official number; a QR-code number never goes faster than its profile (a burst is what gets it banned).
 */
const CEILINGS: { qrcode: number | null; official: number } = { qrcode: null, official: 80 };

/**
 * How far ahead of the ceiling's even pace a send may start on an official number: on a busy machine a timer
 * fires tens of milliseconds late, and the sends it held back then start together (at most 8 at once) instead
 * of each waiting for a timer of its own, which capped a lane at ~45 of its 60/s (BENCHMARKS.md).
 */
const BURST_MS = 100;

/** A send that starts this much behind its schedule starts a new schedule instead of bursting to catch up. */
const MAX_CATCH_UP_MS = 1_000;

export interface Pace {
  /** Milliseconds between two scheduled sends: the profile's rate. */
  interval: number;
  /** The ceiling's even pace: a late lane catches up no faster than one send per `minGap` on average. */
  minGap: number;
  /** Milliseconds a send may start ahead of that even pace (0 on QR-code numbers: always a whole interval apart). */
  burst: number;
}

/**
 * The pace of one number. On an official number the ceiling is a generic cell rate (GCRA): with sends at least
 * `minGap` apart on average and never more than `burst` ms early, n sends span at least (n − 1) × minGap − burst
 * ms, so minGap = (1 s + burst) / ceiling keeps every window of a second (the provider's count) at the ceiling.
 */
export function paceOf(profile: SendProfile, channel: 'qrcode' | 'official', multiplier: number): Pace {
  const interval = 1000 / (SEND_RATES[profile][channel] * multiplier);
  const ceiling = CEILINGS[channel];
  if (ceiling === null) return { interval, minGap: interval, burst: 0 };
  const burst = BURST_MS / multiplier;
  return { interval, minGap: Math.min(interval, (1000 / multiplier + burst) / ceiling), burst };
}

/**
 * When each send of a lane may start. Send i is due at start + i × interval — against the schedule, not one
 * interval after the previous send, so a send that starts a little late (a timer, a page read) does not delay
 * all those after it. A late lane catches up no faster than the provider's ceiling allows; one that fell more
 * than MAX_CATCH_UP_MS behind (a rate limit, a full window) or was told to `restart` begins a new schedule.
 */
export class SendSchedule {
  private anchor = 0;
  private count = 0;
  /** The ceiling's theoretical time of the next send (GCRA): one minGap after the last, or after now when idle. */
  private ceilingAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly pace: Pace) {}

  /** The earliest start of the next send (milliseconds since the epoch). */
  nextAt(): number {
    const due = this.count === 0 ? Number.NEGATIVE_INFINITY : this.anchor + this.count * this.pace.interval;
    return Math.max(due, this.ceilingAt - this.pace.burst);
  }

  /** A send started at `at` (on or after nextAt()). */
  started(at: number): void {
    if (this.count === 0 || at - (this.anchor + this.count * this.pace.interval) > MAX_CATCH_UP_MS) {
      this.anchor = at;
      this.count = 0;
    }
    this.count++;
    this.ceilingAt = Math.max(this.ceilingAt, at) + this.pace.minGap;
  }

  /** The next send begins a new schedule (after the provider's rate limit: no catching up on a number it slowed). */
  restart(): void {
    this.count = 0;
  }
}
