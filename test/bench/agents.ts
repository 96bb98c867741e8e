/**
 * `npm run bench:agents`: how an AI agent keeps up with a reply wave (issue 23 item 6), on a system of its own.
 * One organization, one QR-code number, one active agent that waits `BENCH_AGENT_DELAY_MS` (default 2,000 ms)
 * before it answers. At each rate of `BENCH_AGENT_RATES` (inbound messages per second, default 10,25,50) new
 * customers write one message each for `BENCH_AGENT_SECONDS` (default 10) through the simulator's API, sent on
 * schedule whether or not earlier ones were answered (open loop). Measured: inbound posted → the agent's reply
 * received by the provider, per message; every customer must get exactly one reply. The sustainable rate is the
 * highest rate whose p95 ≤ delay + 1 s with nothing missing or doubled: after the listed rates, up to
 * `BENCH_AGENT_SEARCH_WAVES` (default 3) more waves bisect between the highest that kept up and the lowest that
 * did not, first stepping up by a fifth when none missed (rate-search.ts), so it is known to within a few messages
 * per second. Each process's CPU per reply says how many replies per second the machine's cores could give at most.
 * Writes bench-results/agents.json; with BENCH_CPU_PROFILE=<dir>, the agents, messaging and crm processes write CPU
 * profiles there when they stop; with BENCH_AGENT_DB_TALLY=1, the commands each of them sends the database per reply
 * are counted too.
 */
import mongoose from 'mongoose';
import { request } from 'undici';
import { apiClient } from './api-client';
import { connectNumbers } from './broadcast-setup';
import { withCpuShare, type CpuShare } from './cpu-share';
import { startDbCommandTally, tallySince, type DbCommandTally } from './db-command-tally';
import { cpuProfileEnv, startOwnSystem, type OwnSystem } from './own-system';
import { settle } from './quiet';
import { bracketOf, nextRateToMeasure } from './rate-search';
import { startLocalStack } from '../../deploy/lib/local-stack';
import { writeResult } from './results';
import { percentile, round, sleep } from './stats';

export interface AgentRateFigure {
  rate_per_s: number;
  inbound: number;
  replied: number;
  duplicates: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
  /** Replies received per second, first inbound → last reply. */
  replies_per_s: number;
  /**
   * p95 of where the time went, from the runs: the contact's message (its provider time) → its run recorded
   * (messaging's callback, the outbox relay, Kafka, the intake), and the reply due → the run finished.
   */
  recorded_p95_ms: number;
  execute_p95_ms: number;
  kept_up: boolean;
  /** How busy the system's processes were during the wave, and the machine's load. */
  cpu: CpuShare;
  /**
   * CPU each process spent per reply (ms), and the rate those costs allow on the machine's cores when nothing else
   * runs there (the database's own share not counted): above it, a wave can only queue.
   */
  cpu_ms_per_reply?: Record<string, number>;
  cpu_bound_per_s?: number;
  /**
   * CPU per reply of what shares the cores without being the product (the provider simulator; this bench runner: the
   * load, the polling for replies, the counting proxies), and the rate the cores allow with it counted too.
   */
  stand_ins_ms_per_reply?: Record<string, number>;
  cpu_bound_with_stand_ins_per_s?: number;
  /**
   * The database server's operations per reply during the wave (its opcounters: inserts, queries, updates,
   * deletes, commands; on a shared server, others' work counts too).
   */
  db_ops_per_reply?: number;
  /**
   * The commands each process sent to the database per reply (through a counting proxy, db-command-tally.ts), and
   * the largest kinds (`<command>:<collection>`): where the database round trips of a reply are.
   */
  db_commands_per_reply?: Record<string, number>;
  db_commands_top?: Record<string, number>;
}

export interface AgentFigures {
  measured_at: string;
  reply_delay_ms: number;
  seconds: number;
  rates: AgentRateFigure[];
  /** The highest measured rate that kept up (p95 ≤ delay + 1 s, each customer answered once); 0 when none did. */
  sustainable_per_s: number;
  /** The lowest measured rate above it that did not keep up (null: every higher one did): the search's bracket. */
  missed_per_s?: number | null;
}

const log = (line: string) => console.log(`[bench:agents ${new Date().toISOString().slice(11, 19)}] ${line}`);
const numberList = (value: string | undefined, fallback: number[]) =>
  value ? value.split(',').map((part) => Number(part.trim())) : fallback;

async function main(): Promise<void> {
  const delayMs = Number(process.env.BENCH_AGENT_DELAY_MS ?? 2_000);
  const seconds = Number(process.env.BENCH_AGENT_SECONDS ?? 10);
  const rates = numberList(process.env.BENCH_AGENT_RATES, [10, 25, 50]);
  const searchWaves = Number(process.env.BENCH_AGENT_SEARCH_WAVES ?? 3);
  // With BENCH_AGENT_DB_TALLY=1 each measured process reaches the database through its own counting proxy: its
  // commands per reply. Off by default: the proxies put this process's event loop and a loopback hop into every
  // database round trip of the system under measure.
  const upstream = (await startLocalStack()).MONGODB_URI;
  const tallies =
    process.env.BENCH_AGENT_DB_TALLY === '1'
      ? {
          agents: await startDbCommandTally(upstream),
          messaging: await startDbCommandTally(upstream),
          crm: await startDbCommandTally(upstream),
        }
      : undefined;
  const profiled = cpuProfileEnv([...MEASURED]);
  const own = await startOwnSystem({
    crmReplicas: 1,
    webhooksReplicas: 1,
    envFor: Object.fromEntries(MEASURED.map((name) => [name, { ...profiled?.[name], ...(tallies && { MONGODB_URI: tallies[name].uri }) }])),
    traces: process.env.BENCH_TRACES === '1',
  });
  try {
    const [number] = (await connectNumbers(own, { official: 0, qrcode: 1 })).qrcode;
    if (!number) throw new Error('no QR-code number');
    const api = apiClient(own.system.baseUrl, own.key);
    const agent = await api.call<{ data: { id: string } }>('POST', '/v1/ai-agents', {
      name: 'Wave answerer',
      type: 'support',
      scope: { sources: ['chatapp'], chatappInstanceIds: [number.id] },
      behavior: { strategy: 'always', replyDelayMs: delayMs },
      aiConfig: { instructions: 'Fallback: Thanks, {first_name}! How can we help?', temperature: 0 },
    });
    await api.call('POST', `/v1/ai-agents/${agent.data.id}/activate`, {});
    const figures: AgentRateFigure[] = [];
    const measureRate = async (rate: number) => {
      log(`${rate} inbound/s for ${seconds} s`);
      await settle(log, `${rate} inbound/s`);
      const started = Date.now();
      const opsBefore = await databaseOps(own);
      const commandsBefore = tallies && snapshots(tallies);
      const generatorBefore = process.cpuUsage();
      const { result, ...share } = await withCpuShare(own, [...MEASURED, 'webhooks', 'simulator'], () =>
        measureWave(own, number.ref, rate, seconds, delayMs, figures.length),
      );
      const waveSeconds = (Date.now() - started) / 1000;
      const generator = process.cpuUsage(generatorBefore);
      const { simulator = 0, ...system } = share.cpu_percent;
      const cpu = { ...share, cpu_percent: system };
      const standIns = {
        simulator,
        [tallies ? 'bench runner (load, database tallies)' : 'bench runner (load)']: Math.round(
          (generator.user + generator.system) / 10_000 / waveSeconds,
        ),
      };
      const db_ops_per_reply = round(((await databaseOps(own)) - opsBefore) / Math.max(1, result.replied), 1);
      const figure = {
        ...result,
        cpu,
        ...cpuPerReply(cpu, standIns, waveSeconds, result.replied),
        db_ops_per_reply,
        ...(tallies && commandsBefore && commandsPerReply(commandsBefore, snapshots(tallies), result.replied)),
      };
      log(JSON.stringify(figure));
      figures.push(figure);
    };
    for (const rate of rates) await measureRate(rate);
    // Then between the highest rate that kept up and the lowest that did not, halving the gap each wave (stepping
    // up first when none missed).
    for (let probe = 0; probe < searchWaves; probe++) {
      const rate = nextRateToMeasure(figures, SEARCH_RESOLUTION_PER_S);
      if (rate === null) break;
      await measureRate(rate);
    }
    const { kept, missed } = bracketOf(figures);
    const result: AgentFigures = {
      measured_at: new Date().toISOString(),
      reply_delay_ms: delayMs,
      seconds,
      rates: figures,
      sustainable_per_s: kept,
      missed_per_s: missed,
    };
    writeResult('agents', result);
    console.table(figures);
    console.log(`sustainable: ${result.sustainable_per_s} inbound/s (missed: ${result.missed_per_s ?? 'none'})`);
  } finally {
    await own.stop();
    await Promise.all(Object.values(tallies ?? {}).map((tally) => tally.close()));
  }
}

/** The search stops once the sustainable rate is known to within this many inbound messages per second. */
const SEARCH_RESOLUTION_PER_S = 2;

const MEASURED = ['messaging', 'agents', 'crm'] as const;
type Measured = (typeof MEASURED)[number];

const snapshots = (tallies: Record<Measured, DbCommandTally>) =>
  Object.fromEntries(MEASURED.map((name) => [name, tallies[name].snapshot()])) as Record<Measured, Map<string, number>>;

function commandsPerReply(
  before: Record<Measured, Map<string, number>>,
  after: Record<Measured, Map<string, number>>,
  replies: number,
): Pick<AgentRateFigure, 'db_commands_per_reply' | 'db_commands_top'> {
  const perReply = (count: number) => round(count / Math.max(1, replies), 2);
  const kinds = MEASURED.flatMap((name) =>
    tallySince(before[name], after[name]).map(([command, count]): [string, number] => [`${name} ${command}`, count]),
  );
  const total = (name: Measured) => kinds.filter(([kind]) => kind.startsWith(`${name} `)).reduce((sum, [, count]) => sum + count, 0);
  return {
    db_commands_per_reply: Object.fromEntries(MEASURED.map((name) => [name, perReply(total(name))])),
    db_commands_top: Object.fromEntries(
      kinds
        .sort((a, b) => b[1] - a[1])
        .slice(0, 25)
        .map(([kind, count]) => [kind, perReply(count)]),
    ),
  };
}

/** The system's CPU per reply (its processes, the database, Kafka) and the stand-ins', from % of a core over the wave. */
function cpuPerReply(
  cpu: CpuShare,
  standIns: Record<string, number>,
  seconds: number,
  replies: number,
): Pick<AgentRateFigure, 'cpu_ms_per_reply' | 'cpu_bound_per_s' | 'stand_ins_ms_per_reply' | 'cpu_bound_with_stand_ins_per_s'> {
  const perReply = (percents: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(percents).map(([name, percent]) => [name, round(((percent / 100) * seconds * 1000) / Math.max(1, replies), 1)]),
    );
  const sum = (costs: Record<string, number>) => Object.values(costs).reduce((total, ms) => total + ms, 0);
  const bound = (ms: number) => (ms > 0 ? Math.round((cpu.cores * 1000) / ms) : 0);
  const system = perReply(cpu.cpu_percent);
  const outside = perReply(standIns);
  return {
    cpu_ms_per_reply: system,
    cpu_bound_per_s: bound(sum(system)),
    stand_ins_ms_per_reply: outside,
    cpu_bound_with_stand_ins_per_s: bound(sum(system) + sum(outside)),
  };
}

interface Sent {
  body: { to: string };
  at: string;
}

/** One wave: `rate × seconds` new customers, one message each, posted on schedule; then every reply awaited. */
async function measureWave(
  own: OwnSystem,
  ref: string,
  rate: number,
  seconds: number,
  delayMs: number,
  wave: number,
): Promise<Omit<AgentRateFigure, 'cpu' | 'cpu_ms_per_reply' | 'cpu_bound_per_s'>> {
  const simUrl = own.system.env.SIM_URL ?? '';
  const count = Math.round(rate * seconds);
  const phone = (i: number) => `1777${String(wave).padStart(2, '0')}${String(i).padStart(5, '0')}`;
  const postedAt = new Map<string, number>();
  const posts: Array<Promise<void>> = [];
  const start = Date.now();
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    const from = phone(i);
    postedAt.set(from, Date.now());
    posts.push(
      request(`${simUrl}/control/inbound`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          channel: 'qrcode',
          to_number: ref,
          from: `+${from}`,
          name: `Customer ${i}`,
          text: 'Hello, is anyone there?',
        }),
      }).then(async (response) => {
        const text = await response.body.text();
        if (response.statusCode >= 300) throw new Error(`simulator inbound: ${response.statusCode} ${text}`);
      }),
    );
  }
  await Promise.all(posts);
  // Replies of this wave, by customer (the QR bridge addresses a jid: <digits>@…).
  const deadline = Date.now() + 120_000;
  let replies = new Map<string, number[]>();
  let settled = false;
  while (Date.now() < deadline) {
    const response = await request(`${simUrl}/control/sent?ref=${ref}`);
    const sent = ((await response.body.json()) as { data: Sent[] }).data;
    replies = new Map();
    for (const send of sent) {
      const digits = send.body.to.split('@')[0] ?? '';
      if (!postedAt.has(digits)) continue;
      replies.set(digits, [...(replies.get(digits) ?? []), Date.parse(send.at)]);
    }
    if (replies.size >= count && settled) break;
    // Once all are answered, one more look a moment later: a doubled reply would come right after the first.
    settled = replies.size >= count;
    await sleep(settled ? 2_000 : 500);
  }
  const latencies = [...replies].map(([from, times]) => Math.min(...times) - (postedAt.get(from) ?? 0)).sort((a, b) => a - b);
  const last = Math.max(...[...replies.values()].flat());
  const duplicates = [...replies.values()].reduce((sum, times) => sum + times.length - 1, 0);
  const p95 = percentile(latencies, 95);
  const stages = await stagesOf(own, start, delayMs);
  return {
    rate_per_s: rate,
    inbound: count,
    replied: replies.size,
    duplicates,
    p50_ms: percentile(latencies, 50),
    p95_ms: p95,
    max_ms: latencies.at(-1) ?? NaN,
    replies_per_s: round(replies.size / ((last - start) / 1000), 1),
    ...stages,
    kept_up: replies.size === count && duplicates === 0 && p95 <= delayMs + 1_000,
  };
}

/** The database server's operations so far (serverStatus opcounters, all kinds). */
async function databaseOps(own: OwnSystem): Promise<number> {
  const connection = await mongoose.createConnection(own.system.env.MONGODB_URI ?? '').asPromise();
  try {
    const status = (await connection.db!.admin().command({ serverStatus: 1 })) as { opcounters?: Record<string, number> };
    return Object.values(status.opcounters ?? {}).reduce((sum, count) => sum + Number(count), 0);
  } finally {
    await connection.close();
  }
}

/** From the agents database: inbound → run recorded, and reply due → run finished (see AgentRateFigure). */
async function stagesOf(own: OwnSystem, since: number, delayMs: number) {
  const { MONGODB_URI, AGENTS_DB_NAME } = own.system.env;
  const connection = await mongoose.createConnection(MONGODB_URI ?? '', { dbName: AGENTS_DB_NAME }).asPromise();
  try {
    type Run = { inbound_at: Date; started_at: Date; completed_at: Date | null };
    const runs = await connection
      .collection<Run>('runs')
      .find({ started_at: { $gte: new Date(since) } }, { projection: { inbound_at: 1, started_at: 1, completed_at: 1 } })
      .toArray();
    const sorted = (values: number[]) => values.sort((a, b) => a - b);
    const recorded = sorted(runs.map((run) => run.started_at.getTime() - run.inbound_at.getTime()));
    const due = (run: Run) => Math.max(run.started_at.getTime(), run.inbound_at.getTime() + delayMs);
    const execute = sorted(runs.flatMap((run) => (run.completed_at ? [run.completed_at.getTime() - due(run)] : [])));
    return { recorded_p95_ms: percentile(recorded, 95), execute_p95_ms: percentile(execute, 95) };
  } finally {
    await connection.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
