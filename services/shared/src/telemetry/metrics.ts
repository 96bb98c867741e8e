import { metrics, type Histogram, type Meter, type MeterProvider } from '@opentelemetry/api';
import { withTimeout } from '../concurrency/with-timeout';

/** The meter every instrument of the project is created on (the Prometheus exporter drops the instrumentations' own). */
export const METER_NAME = 'crm';

/**
 * Histogram buckets for durations in seconds: from a 2 ms cache hit to a 10 s webhook timeout. The SDK's default
 * buckets (0–10,000) suit milliseconds, and the exposed names end in `_seconds`.
 */
export const SECONDS_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A duration histogram in seconds with SECONDS_BUCKETS: `name` should end in `_seconds`. */
export const secondsHistogram = (meter: Meter, name: string, description: string): Histogram =>
  meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: SECONDS_BUCKETS } });

/**
 * Instruments created on first use from the global meter provider, and again if it changes: startTelemetry sets
 * it before anything records, but a module loaded without it (unit tests, OTEL_SDK_DISABLED) records into no-ops.
 */
export function instruments<T>(create: (meter: Meter) => T): () => T {
  let made: { provider: MeterProvider; value: T } | undefined;
  return () => {
    const provider = metrics.getMeterProvider();
    if (made?.provider !== provider) made = { provider, value: create(provider.getMeter(METER_NAME)) };
    return made.value;
  };
}

/**
 * A value computed when scraped, at most once per `maxAgeMs` (a scrape every few seconds from several
 * Prometheus servers costs one query), and never twice at once. A scrape waits at most `timeoutMs` (an unreachable
 * broker must not hang it; the computation goes on for the next one). A failed or late computation reports
 * nothing: the series is absent from that scrape rather than a stale value that would hide the failure.
 */
export function cachedObservation<T>(compute: () => Promise<T>, maxAgeMs: number, timeoutMs = 3_000): () => Promise<T | undefined> {
  let last: { at: number; value: T } | undefined;
  let running: Promise<T | undefined> | undefined;
  return () => {
    if (last && Date.now() - last.at < maxAgeMs) return Promise.resolve(last.value);
    running ??= compute()
      .then((value) => (last = { at: Date.now(), value }).value)
      .catch(() => (last = undefined))
      .finally(() => (running = undefined));
    return withTimeout(running, timeoutMs, () => undefined);
  };
}
