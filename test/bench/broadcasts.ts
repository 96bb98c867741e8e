/**
 * `npm run bench:broadcasts`: broadcast sending on a system of its own at production pacing (multiplier 1) — the
 * recipients per second each send profile achieves on official and QR-code numbers, and how long a 2,000-recipient
 * official broadcast takes to send, to complete and to be read. Writes bench-results/broadcasts.json; `npm run
 * bench:report` adds it to BENCHMARKS.md.
 */
import type { SendProfile } from '@crm/shared/schemas';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SEND_RATES } from '../../services/messaging/src/broadcasts/pacing';
import { apiClient, type ApiClient } from './api-client';
import { connectNumbers, launch, seedAudience } from './broadcast-setup';
import { withCpuShare, type CpuShare } from './cpu-share';
import { startDbCommandTally, tallySince } from './db-command-tally';
import { startLocalStack } from '../../deploy/lib/local-stack';
import { cpuProfileEnv, startOwnSystem, type OwnSystem } from './own-system';
import { cpuSecondsOf, memoryOf } from './proc-stats';
import { writeResult } from './results';
import { sleep } from './stats';

export interface ProfileFigure {
  channel: 'official' | 'qrcode';
  profile: SendProfile;
  recipients: number;
  target_per_s: number;
  measured_per_s: number;
}

/** What the 2,000-recipient broadcast cost the messaging service, from launch until every recipient was read. */
export interface LargeCost {
  /** CPU of the messaging process (user + system) per recipient. */
  messaging_cpu_ms_per_recipient: number;
  /** Database commands the messaging process sent per recipient (heartbeats left out), and the largest kinds. */
  db_commands_per_recipient: number;
  db_commands_top: Record<string, number>;
  /** The messaging process's resident memory once started, and its peak (VmHWM) at the end of the bench. */
  messaging_ready_rss_mb: number | null;
  messaging_peak_rss_mb: number | null;
  /** Its V8 heap over the whole bench (heap-peak.mjs): the largest used heap, and the largest right after a full GC (alive). */
  messaging_heap: { used_mb: number; after_full_gc_mb: number } | null;
}

export interface BroadcastFigures {
  profiles: ProfileFigure[];
  large: { recipients: number; target_per_s: number; send_s: number; completed_s: number; all_read_s: number; per_s: number } & CpuShare &
    Partial<LargeCost>;
}

const log = (line: string) => console.log(`[bench:broadcasts ${new Date().toISOString().slice(11, 19)}] ${line}`);
const PROFILES: SendProfile[] = ['conservative', 'moderate', 'aggressive'];

async function main(): Promise<void> {
  // Messaging reaches the database through a counting proxy: its commands per recipient.
  const tally = await startDbCommandTally((await startLocalStack()).MONGODB_URI);
  const profiled = cpuProfileEnv(['messaging', 'crm']);
  const heapDir = mkdtempSync(join(tmpdir(), 'bench-heap-'));
  // BENCH_V8_FLAGS: V8 settings of the messaging process for an A/B of its memory (v8-flags.mjs).
  const preloads = [
    profiled?.messaging?.NODE_OPTIONS,
    `--import ${resolve(__dirname, 'heap-peak.mjs')}`,
    process.env.BENCH_V8_FLAGS ? `--import ${resolve(__dirname, 'v8-flags.mjs')}` : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  const own = await startOwnSystem({
    crmReplicas: 1,
    webhooksReplicas: 1,
    envFor: {
      ...profiled,
      messaging: {
        ...profiled?.messaging,
        NODE_OPTIONS: preloads,
        HEAP_PEAK_DIR: heapDir,
        MONGODB_URI: tally.uri,
        BENCH_V8_FLAGS: process.env.BENCH_V8_FLAGS ?? '',
      },
    },
  });
  try {
    const api = apiClient(own.system.baseUrl, own.key);
    const messaging = own.system.process('messaging').snapshot().pid ?? 0;
    const readyRss = memoryOf(messaging)?.rss_mb ?? null;
    const numbers = await connectNumbers(own);
    const figures: ProfileFigure[] = [];
    // Official numbers: about 10 s of sending per profile, one profile at a time.
    for (const [index, profile] of PROFILES.entries()) {
      const recipients = SEND_RATES[profile].official * 10;
      await seedAudience(own, `off-${profile}`, recipients, index * 10_000);
      figures.push(await measureProfile(own, api, numbers.official[index]!, 'official', profile, recipients));
    }
    // QR-code numbers are slow by design: 5 recipients per profile, the three at once on three numbers.
    for (const [index, profile] of PROFILES.entries()) await seedAudience(own, `qr-${profile}`, 5, 50_000 + index * 100);
    figures.push(
      ...(await Promise.all(PROFILES.map((profile, index) => measureProfile(own, api, numbers.qrcode[index]!, 'qrcode', profile, 5)))),
    );
    await seedAudience(own, 'large', 2_000, 60_000);
    const [commandsBefore, cpuBefore] = [tally.snapshot(), cpuSecondsOf(messaging) ?? 0];
    const { result: sent, ...cpu } = await withCpuShare(own, ['messaging', 'crm', 'webhooks', 'simulator'], () =>
      measureLarge(own, api, numbers.official[3]!),
    );
    const commands = tallySince(commandsBefore, tally.snapshot());
    const perRecipient = (value: number) => Math.round((value / sent.recipients) * 100) / 100;
    const large = {
      ...sent,
      ...cpu,
      messaging_cpu_ms_per_recipient: perRecipient(((cpuSecondsOf(messaging) ?? 0) - cpuBefore) * 1000),
      db_commands_per_recipient: perRecipient(commands.reduce((sum, [, count]) => sum + count, 0)),
      db_commands_top: Object.fromEntries(commands.slice(0, 20).map(([name, count]) => [name, perRecipient(count)])),
      messaging_ready_rss_mb: readyRss,
      messaging_peak_rss_mb: memoryOf(messaging)?.peak_rss_mb ?? null,
      messaging_heap: heapPeakOf(heapDir, messaging),
    };
    const result: BroadcastFigures = { profiles: figures, large };
    writeResult('broadcasts', result);
    console.table(figures);
    console.log(large);
  } finally {
    await own.stop();
    await tally.close();
  }
}

/** What heap-peak.mjs last wrote for the process (it writes every second). */
function heapPeakOf(dir: string, pid: number): LargeCost['messaging_heap'] {
  try {
    const peak = JSON.parse(readFileSync(join(dir, `messaging-${pid}.json`), 'utf8')) as { used_mb: number; after_full_gc_mb: number };
    return { used_mb: peak.used_mb, after_full_gc_mb: peak.after_full_gc_mb };
  } catch {
    return null;
  }
}

async function sendTimes(own: OwnSystem, ref: string): Promise<number[]> {
  const response = await fetch(`${own.system.env.SIM_URL}/control/sent?ref=${ref}`);
  const body = (await response.json()) as { data: Array<{ at: string }> };
  return body.data.map((send) => Date.parse(send.at)).sort((a, b) => a - b);
}

async function waitForSends(own: OwnSystem, ref: string, count: number, timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const times = await sendTimes(own, ref);
    if (times.length >= count) return times;
    if (Date.now() > deadline) throw new Error(`${ref}: ${times.length}/${count} sends after ${timeoutMs} ms`);
    await sleep(200);
  }
}

async function measureProfile(
  own: OwnSystem,
  api: ApiClient,
  number: { id: string; ref: string },
  channel: 'official' | 'qrcode',
  profile: SendProfile,
  recipients: number,
): Promise<ProfileFigure> {
  log(`${channel} ${profile}: ${recipients} recipients`);
  await launch(api, channel, number, `${channel === 'official' ? 'off' : 'qr'}-${profile}`, profile);
  const times = await waitForSends(own, number.ref, recipients, 300_000);
  const span = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000;
  return {
    channel,
    profile,
    recipients,
    target_per_s: SEND_RATES[profile][channel],
    measured_per_s: Math.round(((recipients - 1) / span) * 100) / 100,
  };
}

async function measureLarge(own: OwnSystem, api: ApiClient, number: { id: string; ref: string }) {
  log('official aggressive: 2,000 recipients');
  const { id, started } = await launch(api, 'official', number, 'large', 'aggressive');
  const times = await waitForSends(own, number.ref, 2_000, 600_000);
  const sendS = ((times.at(-1) ?? 0) - started) / 1000;
  let completedS = 0;
  for (;;) {
    const broadcast = await api.call<{ data: { status: string; stats: { read: number } } }>('GET', `/v1/broadcasts/${id}`);
    if (!completedS && broadcast.data.status === 'completed') completedS = (Date.now() - started) / 1000;
    if (completedS && broadcast.data.stats.read === 2_000) break;
    if (Date.now() - started > 900_000) throw new Error(`the large broadcast did not finish: ${JSON.stringify(broadcast.data)}`);
    await sleep(250);
  }
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    recipients: 2_000,
    target_per_s: SEND_RATES.aggressive.official,
    send_s: round(sendS),
    completed_s: round(completedS),
    all_read_s: round((Date.now() - started) / 1000),
    per_s: round(1_999 / (((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000)),
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
