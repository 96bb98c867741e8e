import { waitUntil } from '../../../deploy/lib/processes';
import type { RunningSystem } from '../../../deploy/lib/system';

/**
 * Stops one replica with `signal` (SIGKILL: a crash; SIGTERM: a rolling update), leaves it down for `downMs` (what
 * a restart takes in a cluster), starts it again and waits until it is ready. Resolves at the restart: the fault's end.
 */
export async function restartReplica(system: RunningSystem, name: string, signal: NodeJS.Signals, downMs: number): Promise<number> {
  // A stop on purpose: the supervisor leaves the process down until respawn() (a crash it would restart at once).
  await system.process(name).stop(signal);
  await new Promise((resolve) => setTimeout(resolve, downMs));
  const restartedAt = Date.now();
  const started = system.respawn(name);
  await waitUntil(`${name} after its restart`, () => system.healthy(name), { timeoutMs: 90_000, process: started });
  return restartedAt;
}
