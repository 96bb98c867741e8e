/**
 * The flood's clients, in a process of their own (flood.ts): `clients` keep-alive connections, opened on
 * 'connect' by one cheap request each, then on 'run' each calls the request again as soon as answered (a refusal is
 * answered at once and called again: clients that never back off) until the run's end.
 */
import { Agent } from 'node:http';
import type { FloodAnswers, FloodCommand, FloodSetup } from './flood';
import { send } from './paced-load';

const setup = JSON.parse(process.env.FLOOD_SETUP ?? '{}') as FloodSetup;
const url = new URL(setup.baseUrl);
const agent = new Agent({ keepAlive: true, maxSockets: setup.clients, maxFreeSockets: setup.clients });

/** Every client's connection, each opened by one request of `setup.connectPath` (not part of the flood). */
async function connect(): Promise<void> {
  await Promise.all(Array.from({ length: setup.clients }, () => send(agent, url, { method: 'GET', path: setup.connectPath })));
}

async function run(seconds: number): Promise<FloodAnswers> {
  const start = performance.now();
  const end = start + seconds * 1000;
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let errors = 0;
  const client = async (): Promise<void> => {
    while (performance.now() < end) {
      const sent = performance.now();
      try {
        const status = await send(agent, url, setup.request);
        // An answer after the run's end is not counted, as autocannon counts none.
        if (performance.now() > end) return;
        statuses[status] = (statuses[status] ?? 0) + 1;
        latencies.push(performance.now() - sent);
      } catch {
        errors++;
      }
    }
  };
  await Promise.race([Promise.all(Array.from({ length: setup.clients }, client)), sleepUntil(end + 100)]);
  return { seconds: (Math.min(performance.now(), end) - start) / 1000, statuses, latencies, errors };
}

const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));

process.on('message', (command: FloodCommand) => {
  const done =
    command.kind === 'connect'
      ? connect().then(() => ({ kind: 'connected' as const }))
      : command.kind === 'run'
        ? run(command.seconds).then((answers) => ({ kind: 'answers' as const, answers }))
        : Promise.resolve(agent.destroy()).then(() => ({ kind: 'closed' as const }));
  done.then(
    (reply) => process.send?.(reply),
    (error: unknown) => process.send?.({ kind: 'failed', message: String(error) }),
  );
});
