import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkGrpc } from '../../services/shared/src/bin/healthcheck';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface StateProcess {
  name: string;
  pid: number | null;
  restarts: number;
  ports: Record<string, number>;
}

/** What a running `npm start` says of its processes (.local/run/npm-start.json in its folder). */
const processesOf = (folder: string): StateProcess[] =>
  (JSON.parse(readFileSync(join(folder, '.local/run/npm-start.json'), 'utf8')) as { processes: StateProcess[] }).processes;

export interface CrashReport {
  /** Per killed process, milliseconds from its SIGKILL until its replacement answered its health check SERVING. */
  servingAgainMs: Record<string, number>;
  /** The contacts whose creation was answered 201 during the run. */
  acked: string[];
  /** Creations that failed (not acknowledged, so not owed): their outcomes. */
  failed: string[];
}

/**
 * A steady write load (one contact at a time, 100 ms apart) through the gateway of the `npm start` running in
 * `folder`; after 2 s the processes `names` are SIGKILLed together; each must be restarted by npm start's
 * supervisor and serve again; the load goes on 3 s more.
 */
export async function crashUnderLoad(options: { folder: string; baseUrl: string; key: string; names: string[] }): Promise<CrashReport> {
  const acked: string[] = [];
  const failed: string[] = [];
  let loading = true;
  const load = (async () => {
    for (let n = 0; loading; n++) {
      const response = await fetch(`${options.baseUrl}/v1/contacts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Steady ${n}` }),
        signal: AbortSignal.timeout(15_000),
      }).catch((error: unknown) => String(error));
      if (typeof response === 'string') failed.push(response);
      else if (response.status === 201) acked.push(((await response.json()) as { data: { id: string } }).data.id);
      else failed.push(`http ${response.status}`);
      await sleep(100);
    }
  })();
  await sleep(2_000);
  const victims = processesOf(options.folder).filter((process) => options.names.includes(process.name));
  const killedAt = Date.now();
  for (const victim of victims) if (victim.pid) process.kill(victim.pid, 'SIGKILL');
  const servingAgainMs: Record<string, number> = {};
  await Promise.all(
    victims.map(async (victim) => {
      for (;;) {
        const now = processesOf(options.folder).find((process) => process.name === victim.name);
        const replaced = now !== undefined && now.restarts > victim.restarts && now.pid !== null && now.pid !== victim.pid;
        if (replaced && (await checkGrpc(`127.0.0.1:${victim.ports.grpc}`, 500))) break;
        if (Date.now() - killedAt > 60_000) throw new Error(`${victim.name} was not serving again 60 s after its SIGKILL`);
        await sleep(100);
      }
      servingAgainMs[victim.name] = Date.now() - killedAt;
    }),
  );
  await sleep(3_000);
  loading = false;
  await load;
  return { servingAgainMs, acked, failed };
}
