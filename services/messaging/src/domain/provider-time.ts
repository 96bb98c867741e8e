/** The provider's event time (whole seconds), or the receipt time when the callback carries none. */
export function providerTime(date: Date, now: Date): Date {
  return Number.isFinite(date.getTime()) && date.getTime() > 0 ? date : now;
}

/** A callback that arrives later than this is a delayed or backfilled one: it keeps the provider's time. */
const LIVE_LAG_MS = 60_000;

/**
 * When a message is shown and ordered: the receipt time for a live callback (provider timestamps have whole
 * seconds, and mixing them with millisecond times would reorder a conversation), the provider's time for a
 * delayed one. The official window is always measured from the provider's time.
 */
export function displayTime(providerAt: Date, now: Date): Date {
  const lag = now.getTime() - providerAt.getTime();
  return lag >= -LIVE_LAG_MS && lag < LIVE_LAG_MS ? now : providerAt;
}
