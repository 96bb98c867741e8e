/**
 * `npm run bench:degraded`: does one slow service slow the rest of the API? On a system of its own, GET /v1/contacts
 * is loaded by N clients, first with every service healthy, then with the agents process stopped by SIGSTOP (it
 * keeps its port and accepts calls, answers none: each agents request waits out the gateway's request budget until
 * the agents breaker opens) while N more clients call GET /v1/ai-agents. Compares the contacts route's p50/p99 in
 * the two phases and counts the agents answers by status. Writes bench-results/degraded.json; `npm run bench:report`
 * adds it to BENCHMARKS.md. Knobs: DEGRADED_CLIENTS (10), DEGRADED_SECONDS (30), DEGRADED_BUDGET_MS (the
 * gateway's REQUEST_TIMEOUT_MS, 12000).
 */
import autocannon from 'autocannon';
import { machineInfo } from './config';
import { runLoad, type LoadResult } from './load';
import { startOwnSystem, type OwnSystem } from './own-system';
import { writeResult } from './results';
import { seedContacts } from './seed';
import { round, sleep } from './stats';

export interface PhaseFigures {
  phase: 'healthy' | 'agents stopped';
  contacts: LoadResult;
  /** Answers of the agents route by HTTP status (none when it was not called). */
  agents_statuses: Record<string, number>;
}

export interface DegradedFigures {
  measured_at: string;
  machine: ReturnType<typeof machineInfo>;
  clients: number;
  seconds: number;
  request_timeout_ms: number;
  phases: PhaseFigures[];
  /** Degraded p99 / healthy p99 of GET /v1/contacts. */
  p99_ratio: number | null;
}

const log = (line: string) => console.log(`[bench:degraded ${new Date().toISOString().slice(11, 19)}] ${line}`);
const numberEnv = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

/** Calls the agents route for `seconds` with `clients` connections; counts the answers by status. */
async function hammerAgents(own: OwnSystem, clients: number, seconds: number): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: own.system.baseUrl,
        connections: clients,
        duration: seconds,
        // Longer than the request budget: a request waiting out its deadline is an answer (504), not a client timeout.
        timeout: 30,
        requests: [{ method: 'GET', path: '/v1/ai-agents', headers: { authorization: `Bearer ${own.key}` } }],
      },
      (error) => (error ? reject(error) : resolve()),
    );
    instance.on('response', (_client, status) => (statuses[status] = (statuses[status] ?? 0) + 1));
  });
  return statuses;
}

async function phase(own: OwnSystem, name: PhaseFigures['phase'], clients: number, seconds: number): Promise<PhaseFigures> {
  const withAgents = name === 'agents stopped';
  log(`${name}: ${clients} clients on GET /v1/contacts${withAgents ? ` and ${clients} on GET /v1/ai-agents` : ''} for ${seconds} s`);
  const [contacts, agents_statuses] = await Promise.all([
    runLoad({
      baseUrl: own.system.baseUrl,
      clients,
      seconds,
      request: { method: 'GET', path: '/v1/contacts?limit=25', headers: { authorization: `Bearer ${own.key}` } },
    }),
    withAgents ? hammerAgents(own, clients, seconds) : {},
  ]);
  return { phase: name, contacts, agents_statuses };
}

async function main(): Promise<void> {
  const clients = numberEnv('DEGRADED_CLIENTS', 10);
  const seconds = numberEnv('DEGRADED_SECONDS', 30);
  const budget = numberEnv('DEGRADED_BUDGET_MS', 12_000);
  // The gateway's knobs are its environment; the own system takes them from this process's.
  process.env.REQUEST_TIMEOUT_MS = String(budget);
  const own = await startOwnSystem({ crmReplicas: 1, webhooksReplicas: 1 });
  const agents = own.system.processes.find((process) => process.name === 'agents');
  if (!agents?.child.pid) throw new Error('the own system has no agents process');
  try {
    // A small organization: the page query stays cheap, so the figures are of the gateway, not of the store.
    await seedContacts(own.contacts, own.orgId, 200);
    // Warm-up: connections, the key cache, the JIT.
    await phase(own, 'healthy', clients, 3);
    const healthy = await phase(own, 'healthy', clients, seconds);
    log(`stopping agents (pid ${agents.child.pid}) with SIGSTOP`);
    agents.child.kill('SIGSTOP');
    let degraded: PhaseFigures;
    try {
      degraded = await phase(own, 'agents stopped', clients, seconds);
    } finally {
      agents.child.kill('SIGCONT');
    }
    await sleep(1_000);
    const ratio = healthy.contacts.p99_ms && degraded.contacts.p99_ms ? round(degraded.contacts.p99_ms / healthy.contacts.p99_ms, 2) : null;
    const figures: DegradedFigures = {
      measured_at: new Date().toISOString(),
      machine: machineInfo(),
      clients,
      seconds,
      request_timeout_ms: budget,
      phases: [healthy, degraded],
      p99_ratio: ratio,
    };
    writeResult('degraded', figures);
    console.table(
      figures.phases.map(({ phase: name, contacts, agents_statuses }) => ({
        phase: name,
        'contacts req/s': contacts.rps,
        'contacts p50 ms': contacts.p50_ms,
        'contacts p99 ms': contacts.p99_ms,
        'contacts non-2xx': contacts.non_2xx,
        'agents answers': JSON.stringify(agents_statuses),
      })),
    );
    console.log(`p99 of GET /v1/contacts, agents stopped / healthy: ${ratio ?? '—'}`);
  } finally {
    await own.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
