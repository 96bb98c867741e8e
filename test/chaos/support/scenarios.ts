import type { LoadBalancer } from '../../../deploy/lib/load-balancer';
import { waitUntil } from '../../../deploy/lib/processes';
import type { RunningSystem, SystemOptions } from '../../../deploy/lib/system';
import type { ReceivedEvent } from '../../support/events';
import type { Receiver } from '../../support/webhook-receiver';
import type { ChaosContext, ChaosStackEnv } from './context';
import { CHAOS_ENV } from './settings';
import { restartReplica } from './replicas';
import { startDatabase, startKafka, stopDatabase, stopKafka } from './stack-control';
import type { Toxic, Toxiproxy } from './toxiproxy';

/** What a fault can act on. */
export interface FaultTarget {
  system: RunningSystem;
  options: SystemOptions;
  chaos: ChaosContext;
  toxiproxy: Toxiproxy;
  balancer: LoadBalancer;
  receiver: Receiver;
  /** Adds a line to the scenario's notes in the table. */
  note(text: string): void;
}

export interface Scenario {
  name: string;
  /** Part of the short profile (inside `npm test`); the full profile runs every scenario. */
  short: boolean;
  /** Injects the fault, waits, removes it; resolves with the time the fault ended. */
  inject(target: FaultTarget): Promise<number>;
  /** A graceful operation: any failed request fails the suite. */
  zeroFailures?: boolean;
  /** Set for the 410 scenario (see gone-receiver.ts). */
  gone?: true;
  exempt?: (event: ReceivedEvent) => boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A duration by profile. */
const span = (target: FaultTarget, shortMs: number, fullMs: number) => (target.chaos.profile === 'short' ? shortMs : fullMs);

const kill = (name: string, short: boolean): Scenario => ({
  name: `SIGKILL ${name}`,
  short,
  inject: (target) => restartReplica(target.system, name, 'SIGKILL', span(target, 1_000, 3_000)),
});

/**
 * Crashes the supervisor repairs by itself, as under `npm start`: the processes are SIGKILLed at once, nobody
 * restarts them but their supervisor, and each must serve again (its health check). How long that took is noted:
 * under this suite's load on 2 cores it is CPU-bound (8 s measured); the 5 s bound of a restart is held by
 * test/docs/commands.test.ts on `npm start` itself.
 */
const crash = (names: string[], short: boolean): Scenario => ({
  name: `crash ${names.join(' + ')} (supervisor restarts)`,
  short,
  async inject(target) {
    const victims = names.map((name) => ({ name, process: target.system.process(name) }));
    const before = new Map(victims.map(({ name, process }) => [name, process.restarts]));
    const killedAt = Date.now();
    for (const { process } of victims) process.child.kill('SIGKILL');
    await Promise.all(
      victims.map(async ({ name, process }) => {
        const back = async () => process.restarts > (before.get(name) ?? 0) && process.state === 'running' && target.system.healthy(name);
        await waitUntil(`${name}, restarted by its supervisor,`, back, { timeoutMs: 60_000 });
        target.note(`${name} serving again ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`);
      }),
    );
    return Date.now();
  },
});

/**
 * A rolling restart of one gateway replica. Lossless by protocol, not by luck: on SIGTERM the gateway fails /readyz
 * and keeps serving for SHUTDOWN_DRAIN_MS (12 probe periods of the balancer here) before it closes its listener, so
 * the balancer has stopped sending it requests before any could be refused; the scenario checks that it had.
 */
const drainGateway = (name: string, short: boolean): Scenario => ({
  name: `SIGTERM ${name} (graceful)`,
  short,
  zeroFailures: true,
  async inject(target) {
    const backend = target.balancer.backends[Number(name.split('-')[1]) - 1];
    if (!backend) throw new Error(`no balancer backend for ${name}`);
    const signalledAt = Date.now();
    const restarted = restartReplica(target.system, name, 'SIGTERM', 500);
    const drainMs = Number(CHAOS_ENV.SHUTDOWN_DRAIN_MS);
    await waitUntil(`the balancer to take ${name} out while it drains`, async () => !backend.ready, { timeoutMs: drainMs });
    const noticedMs = Date.now() - signalledAt;
    if (noticedMs >= drainMs)
      throw new Error(`the balancer noticed ${name} draining after ${noticedMs} ms, not within its ${drainMs} ms drain`);
    return restarted;
  },
});

/** One of the chaos stack's servers stopped for [short, full] ms, then started again. */
const serverDown = (
  name: string,
  short: boolean,
  stop: (env: ChaosStackEnv) => Promise<void>,
  start: (env: ChaosStackEnv) => Promise<void>,
  [shortMs, fullMs]: [number, number],
): Scenario => ({
  name,
  short,
  async inject(target) {
    await stop(target.chaos.stackEnv);
    await sleep(span(target, shortMs, fullMs));
    await start(target.chaos.stackEnv);
    return Date.now();
  },
});

async function withToxics(target: FaultTarget, toxics: Array<[proxy: string, toxic: Toxic]>, ms: number): Promise<number> {
  for (const [proxy, toxic] of toxics) await target.toxiproxy.addToxic(proxy, toxic);
  await sleep(ms);
  await target.toxiproxy.reset();
  return Date.now();
}

const onCrm = (toxic: Toxic): Array<[string, Toxic]> => [
  ['crm-1', toxic],
  ['crm-2', toxic],
];

/** The receiver answers `answer` for the fault's duration, then 200 again. */
const receiverFault = (name: string, short: boolean, answer: Parameters<Receiver['answerWith']>[0]): Scenario => ({
  name,
  short,
  async inject(target) {
    target.receiver.answerWith(answer);
    await sleep(span(target, 4_000, 10_000));
    target.receiver.answerWith({ status: 200 });
    return Date.now();
  },
});

export const SCENARIOS: Scenario[] = [
  drainGateway('gateway-1', true),
  drainGateway('gateway-2', false),
  kill('gateway-2', false),
  kill('crm-1', true),
  kill('webhooks-1', true),
  crash(['crm-1', 'webhooks-1'], true),
  kill('messaging-1', false),
  kill('agents-1', false),
  serverDown('Kafka broker down', false, stopKafka, startKafka, [10_000, 30_000]),
  serverDown('database down', true, stopDatabase, startDatabase, [5_000, 10_000]),
  {
    name: 'database +200 ms latency',
    short: false,
    inject: (target) =>
      withToxics(target, [['mongo', { name: 'latency', type: 'latency', attributes: { latency: 200, jitter: 50 } }]], 10_000),
  },
  {
    name: 'database bandwidth 64 KB/s',
    short: false,
    inject: (target) => withToxics(target, [['mongo', { name: 'bandwidth', type: 'bandwidth', attributes: { rate: 64 } }]], 10_000),
  },
  {
    name: 'database connections reset',
    short: false,
    // Every connection to the database is reset 500 ms after it opens: replies cut mid-stream, reconnect storms.
    inject: (target) =>
      withToxics(target, [['mongo', { name: 'reset', type: 'reset_peer', attributes: { timeout: 500 } }]], span(target, 4_000, 8_000)),
  },
  {
    name: 'gateway→CRM +200 ms latency',
    short: false,
    inject: (target) => withToxics(target, onCrm({ name: 'latency', type: 'latency', attributes: { latency: 200, jitter: 50 } }), 10_000),
  },
  {
    name: 'gateway→CRM cut (partition, stalled replies)',
    short: false,
    async inject(target) {
      // crm-1 unreachable (connections dropped and refused); crm-2's replies stall, then its connections close.
      await target.toxiproxy.setEnabled('crm-1', false);
      return withToxics(target, [['crm-2', { name: 'stall', type: 'timeout', attributes: { timeout: 3_000 } }]], 6_000);
    },
  },
  receiverFault('receiver slow (1 s answers)', false, { status: 200, delayMs: 1_000 }),
  receiverFault('receiver times out', false, { status: 200, delayMs: 3_000 }),
  receiverFault('receiver 500, then 200', false, { status: 500 }),
  { ...receiverFault('receiver 410 Gone (pauses)', false, { status: 410 }), gone: true },
];

export const scenariosFor = (profile: ChaosContext['profile']): Scenario[] =>
  SCENARIOS.filter((scenario) => profile === 'full' || scenario.short);
