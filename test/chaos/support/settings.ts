/**
 * The chaos system's settings. Webhook retries are fast and many (about 30 s of attempts, the most it takes), so a delivery that
 * failed during a fault is retried after it; pausing after failures is off, 410 still pauses at once by design.
 */
/** How often the load balancer probes each gateway's /readyz (deploy/lib/load-balancer.ts). */
export const BALANCER_PROBE_MS = 250;

export const CHAOS_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_SECOND: '0',
  // Without per-organization bulkheads or the failed-auth throttle, like without rate limits: the faults here make one
  // organization's calls slow on purpose, and the bulkhead would then shed them with 429 (its job, proven by the e2e
  // capacity test), which is not what these scenarios count; the e2e suite runs with the defaults on.
  TENANT_CONCURRENCY: '0',
  AUTH_FAILURE_LIMIT: '0',
  EVENTS_TOPIC_PARTITIONS: '3',
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost,::1',
  WEBHOOK_RETRY_SCHEDULE_MS: '0,250,500,1000,2000,4000,8000,8000,8000,8000',
  WEBHOOK_TIMEOUT_MS: '1500',
  WEBHOOK_PAUSE_AFTER_FAILURES: '100000',
  WEBHOOK_LEASE_MS: '2500',
  SIM_STATUS_DELAY_MS: '150',
  PROVIDER_TIMEOUT_MS: '2000',
  BROADCAST_PACE_MULTIPLIER: '20',
  BROADCAST_LEASE_MS: '1500',
  AGENTS_RUN_LEASE_MS: '2000',
  AGENTS_IDLE_CHECK_MS: '500',
  // A draining gateway serves for 12 probe periods of the balancer after it fails readiness (scenarios.ts).
  SHUTDOWN_DRAIN_MS: String(12 * BALANCER_PROBE_MS),
};
