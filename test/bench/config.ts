import { cpus } from 'node:os';

/** Every knob of `npm run bench`, read from the environment once. */
export interface BenchConfig {
  /** Length of each measured load scenario. */
  seconds: number;
  /** Untimed load before each route's first measurement: connections, JIT, caches. */
  warmupSeconds: number;
  /** Length of each webhook latency run (and of the isolation run). */
  steadySeconds: number;
  /** Events per second of the steady latency run and the isolation run, and of the high-rate latency run. */
  steadyRate: number;
  highRate: number;
  /**
   * Contacts per write at the high rate: a batch upsert of that many (BENCH_HIGH_RATE_BATCH; 1 = single creates).
   * Single creates top out below 500/s on 2 cores shared with everything else (BENCHMARKS.md, HTTP): the high-rate
   * run measures the event pipeline, so its events come from batches.
   */
  highRateBatch: number;
  /** Answer time of the slow endpoints of the isolation run, and how many subscriptions answer slowly and with 500. */
  slowEndpointMs: number;
  slowSubscriptions: number;
  failingSubscriptions: number;
  /** Recipients of each of the two broadcasts whose status events are delivered (0 skips that scenario). */
  broadcastRecipients: number;
  /** The webhook scenarios to run (BENCH_WEBHOOK_SCENARIOS=latency,throughput for a quicker development run; `none`). */
  webhookScenarios: Array<'latency' | 'isolation' | 'throughput' | 'broadcasts'>;
  /** Length of the no-traffic window over which idle CPU is read. */
  idleSeconds: number;
  crmReplicas: number;
  webhooksReplicas: number;
  /** Contacts seeded into the benchmark's organization (the list route pages over them). */
  contacts: number;
  /** Deals the PATCH scenario spreads its writes over, so 16 clients measure throughput, not one record's contention. */
  deals: number;
  /**
   * Subscriptions to contact.created during the delivery-throughput run, and the contacts created per second: the
   * deliveries offered per second are their product, well above the target, with a write load the machine carries
   * beside the deliveries.
   */
  fanout: number;
  throughputWriteRate: number;
  /** Client counts of every HTTP scenario. */
  clients: number[];
  /** BENCH_SCALE_OUT=0 skips the 1 + 1 vs 2 + 2 run (two more systems). */
  scaleOut: boolean;
  /** BENCH_STARTUP=0 skips the start-up measurement (minutes of service starts) in a development run. */
  startup: boolean;
}

const int = (name: string, fallback: number, min = 1): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return value;
};

const SCENARIOS = ['latency', 'isolation', 'throughput', 'broadcasts'] as const;

function scenarios(raw: string | undefined): BenchConfig['webhookScenarios'] {
  if (!raw) return [...SCENARIOS];
  if (raw === 'none') return [];
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_WEBHOOK_SCENARIOS: unknown ${unknown.join(', ')} (known: ${SCENARIOS.join(', ')})`);
  return names as BenchConfig['webhookScenarios'];
}

export function loadBenchConfig(): BenchConfig {
  const seconds = int('BENCH_SECONDS', 10);
  return {
    seconds,
    warmupSeconds: int('BENCH_WARMUP_SECONDS', Math.min(3, seconds), 0),
    // ~20 s by default; a short development run (BENCH_SECONDS=2) shortens it too.
    steadySeconds: int('BENCH_STEADY_SECONDS', Math.min(20, 2 * seconds)),
    steadyRate: int('BENCH_STEADY_RATE', 100),
    highRate: int('BENCH_HIGH_RATE', 500),
    highRateBatch: int('BENCH_HIGH_RATE_BATCH', 10),
    slowEndpointMs: int('BENCH_SLOW_ENDPOINT_MS', 2_000),
    slowSubscriptions: int('BENCH_SLOW_SUBSCRIPTIONS', 3, 0),
    failingSubscriptions: int('BENCH_FAILING_SUBSCRIPTIONS', 3, 0),
    broadcastRecipients: int('BENCH_BROADCAST_RECIPIENTS', 2_000, 0),
    webhookScenarios: scenarios(process.env.BENCH_WEBHOOK_SCENARIOS),
    idleSeconds: int('BENCH_IDLE_SECONDS', Math.min(40, 4 * seconds)),
    // One replica, as the issue 23 comparison with the peer: one gateway, one CRM process.
    crmReplicas: int('BENCH_CRM_REPLICAS', 1),
    webhooksReplicas: int('BENCH_WEBHOOKS_REPLICAS', 2),
    contacts: int('BENCH_CONTACTS', 1_000),
    deals: int('BENCH_DEALS', 32),
    fanout: int('BENCH_WEBHOOK_FANOUT', 20),
    throughputWriteRate: int('BENCH_WEBHOOK_WRITE_RATE', 100),
    clients: (process.env.BENCH_CLIENTS ?? '1,16').split(',').map((part) => {
      const value = Number(part.trim());
      if (!Number.isInteger(value) || value < 1)
        throw new Error(`BENCH_CLIENTS must list positive integers, got "${process.env.BENCH_CLIENTS}"`);
      return value;
    }),
    scaleOut: process.env.BENCH_SCALE_OUT !== '0',
    startup: process.env.BENCH_STARTUP !== '0',
  };
}

/** What the figures were measured on, written beside them. */
export function machineInfo(): { cpus: number; cpu_model: string; node: string } {
  const list = cpus();
  return { cpus: list.length, cpu_model: list[0]?.model ?? 'unknown', node: process.version };
}
