import { loadavg } from 'node:os';
import { apiClient } from './api-client';
import type { BenchConfig } from './config';
import { withCpuShare, type CpuShare } from './cpu-share';
import type { OwnSystem } from './own-system';
import { settle } from './quiet';
import { startFastReceiver, type FastReceiver } from './receiver';
import { measuredCommit } from './results';
import { round } from './stats';
import { measureBacklogDrain, type WebhookBacklog } from './webhook-backlog';
import { measureBroadcastEvents, type WebhookBroadcasts } from './webhook-broadcasts';
import { measureIsolation, type WebhookIsolation } from './webhook-isolation';
import { runWebhookPeer, type PeerFigures } from './webhook-peer';
import {
  measureWebhookLatency,
  measureWebhookThroughput,
  subscribe,
  warmWebhooks,
  type Tenant,
  type WebhookLatency,
  type WebhookThroughput,
} from './webhook-scenarios';

/** Null: the scenario did not run (BENCH_WEBHOOK_SCENARIOS). */
export interface WebhookFigures {
  measured_at: string;
  commit: string;
  dirty: boolean;
  /** The machine's 1-minute load average before and after the scenarios (it is shared: compare ratios of one run). */
  load_avg: [number, number];
  /** Write → received at the steady rate and at the high rate, two organizations, with the CPU of each process meanwhile. */
  latency: Array<WebhookLatency & { cpu: CpuShare }>;
  isolation: WebhookIsolation | null;
  throughput: WebhookThroughput | null;
  /** The same load with the webhooks replicas stopped meanwhile: the rate at which they drain it once resumed. */
  backlog: WebhookBacklog | null;
  /** The one-process peer over the backlog's deliveries, same database, same receiver. */
  peer: PeerFigures | null;
  broadcasts: WebhookBroadcasts | null;
}

type Log = (line: string) => void;

const load = (): number => round(loadavg()[0] ?? 0);

/**
 * Every webhook scenario of `npm run bench`, on one system, in an order where each leaves nothing behind that
 * the next would measure: latency at two rates, isolation from slow and failing endpoints, throughput with the
 * peer over the same events, and the broadcast status events.
 */
export async function measureWebhooks(own: OwnSystem, config: BenchConfig, log: Log): Promise<WebhookFigures> {
  const receiver = await startFastReceiver({ slowMs: config.slowEndpointMs });
  const runs = (scenario: BenchConfig['webhookScenarios'][number]) => config.webhookScenarios.includes(scenario);
  try {
    const other = await own.newOrg('Benchmark B');
    const tenants: [Tenant, Tenant] = [
      { name: 'a', api: apiClient(own.system.baseUrl, own.key) },
      { name: 'b', api: apiClient(own.system.baseUrl, other.key) },
    ];
    const figures: WebhookFigures = {
      measured_at: new Date().toISOString(),
      ...measuredCommit(),
      load_avg: [load(), NaN],
      latency: [],
      isolation: null,
      throughput: null,
      backlog: null,
      peer: null,
      broadcasts: null,
    };
    if (runs('latency')) figures.latency = await measureLatencies(own, config, tenants, receiver, log);
    if (runs('isolation')) figures.isolation = await isolation(own, config, tenants, receiver, log);
    if (runs('throughput')) Object.assign(figures, await throughputAndPeer(own, config, tenants[0], receiver, log));
    if (runs('broadcasts') && config.broadcastRecipients > 0) {
      log(`webhooks: status events of two broadcasts of ${config.broadcastRecipients} recipients at once`);
      await settle(log, 'webhooks broadcasts');
      figures.broadcasts = await measureBroadcastEvents(own, receiver, config.broadcastRecipients, log);
    }
    figures.load_avg[1] = load();
    return figures;
  } finally {
    await receiver.close();
  }
}

async function measureLatencies(own: OwnSystem, config: BenchConfig, tenants: Tenant[], receiver: FastReceiver, log: Log) {
  for (const tenant of tenants) await subscribe(tenant.api, receiver.url(`latency-${tenant.name}`));
  await warmWebhooks(tenants, receiver, 10);
  if (config.warmupSeconds > 0) {
    // Untimed load at the steady rate first, as before every HTTP scenario (connections, JIT, caches): the figures
    // are of the system running, not of its first seconds (the first run after the start had the write stage at
    // seconds while the second, the same load, had it at tens of ms).
    log(`webhooks: ${config.warmupSeconds} s of untimed writes at ${config.steadyRate} events/s, then at ${config.highRate}`);
    await measureWebhookLatency(own.system.baseUrl, tenants, receiver, { rate: config.steadyRate, seconds: config.warmupSeconds });
    // The batch path too: its first seconds after a start (connections opened, code compiled) ran below the rate,
    // and the run never caught up with the backlog they left (write stage seconds; the same run again: tens of ms).
    const high = { rate: config.highRate, perWrite: config.highRateBatch, seconds: config.warmupSeconds };
    await measureWebhookLatency(own.system.baseUrl, tenants, receiver, high);
  }
  const latency: WebhookFigures['latency'] = [];
  const names = own.system.processes.map((process) => process.name).filter((name) => /^(gateway|crm|webhooks)/.test(name));
  const runs = [
    { rate: config.steadyRate, perWrite: 1 },
    { rate: config.highRate, perWrite: config.highRateBatch },
  ];
  for (const { rate, perWrite } of runs) {
    log(`webhooks: write → received at ${rate} events/s (${perWrite} per write) for ${config.steadySeconds} s, two organizations`);
    await settle(log, 'webhooks latency');
    const { result: run, ...cpu } = await withCpuShare(own, names, () =>
      measureWebhookLatency(own.system.baseUrl, tenants, receiver, { rate, perWrite, seconds: config.steadySeconds, env: own.system.env }),
    );
    log(`  p50 ${run.p50_ms} ms, p99 ${run.p99_ms} ms, ${run.delivered} delivered, ${run.lost} lost, writes p99 ${run.write_p99_ms} ms`);
    log(`  stages: ${JSON.stringify(run.stages)}; CPU ${JSON.stringify(cpu.cpu_percent)}, load ${cpu.load_avg}`);
    latency.push({ ...run, cpu });
  }
  return latency;
}

async function isolation(own: OwnSystem, config: BenchConfig, tenants: [Tenant, Tenant], receiver: FastReceiver, log: Log) {
  log(
    `webhooks: isolation — ${config.slowSubscriptions} endpoints answering after ${config.slowEndpointMs} ms and ${config.failingSubscriptions} answering 500 beside fast ones`,
  );
  await settle(log, 'webhooks isolation');
  const run = await measureIsolation(own.system.baseUrl, tenants, receiver, {
    rate: config.steadyRate,
    seconds: config.steadySeconds,
    slowMs: config.slowEndpointMs,
    slow: config.slowSubscriptions,
    failing: config.failingSubscriptions,
    env: own.system.env,
  });
  log(`  fast endpoints: p50 ${run.fast.p50_ms} ms, p99 ${run.fast.p99_ms} ms, ${run.fast.lost} lost`);
  log(`  fast endpoints' stages: ${JSON.stringify(run.fast_stages)}; slow answered ${run.slow_answered}`);
  return run;
}

async function throughputAndPeer(own: OwnSystem, config: BenchConfig, tenant: Tenant, receiver: FastReceiver, log: Log) {
  for (let n = 1; n <= config.fanout; n++) await subscribe(tenant.api, receiver.url(`throughput-${n}`));
  await warmWebhooks([tenant], receiver, 5 * config.fanout);
  log(`webhooks: deliveries/s, ${config.throughputWriteRate} contacts/s for ${config.seconds} s × ${config.fanout} subscriptions`);
  await settle(log, 'webhooks throughput');
  const since = Date.now();
  const throughput = await measureWebhookThroughput(own.system.baseUrl, tenant, receiver, {
    subscriptions: config.fanout,
    paths: (path) => path.startsWith('/fast/throughput-') && !path.includes('?peer'),
    rate: config.throughputWriteRate,
    seconds: config.seconds,
  });
  log(
    `  ${throughput.deliveries_per_s} deliveries/s (${throughput.delivered}/${throughput.expected}, ${throughput.duplicates} duplicates)`,
  );
  log('webhooks: the same load with the webhooks replicas stopped (SIGSTOP), then the backlog drained');
  const backlogSince = Date.now();
  const backlog = await measureBacklogDrain(own, tenant, receiver, {
    subscriptions: config.fanout,
    paths: (path) => path.startsWith('/fast/throughput-') && !path.includes('?peer'),
    rate: config.throughputWriteRate,
    seconds: config.seconds,
  });
  log(
    `  backlog: ${backlog.deliveries_per_s} deliveries/s received (${backlog.delivered}/${backlog.expected} in ${backlog.seconds} s), ${backlog.recorded_per_s}/s with outcomes stored (${backlog.recorded_seconds} s)`,
  );
  log('webhooks: the one-process peer over the same deliveries');
  await settle(log, 'webhooks peer');
  const peer = await runWebhookPeer(own.system.env, Math.max(since, backlogSince));
  log(`  peer: ${Math.round(peer.per_s)} deliveries/s (${peer.delivered} in ${peer.seconds.toFixed(1)} s, ${peer.failed} failed)`);
  return { throughput, backlog, peer };
}
