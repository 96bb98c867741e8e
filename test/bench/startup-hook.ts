import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Start-up time and RSS per service, from source (tsx) and compiled (node), as `measureStartup()` reports them. */
export interface StartupFigures {
  measured: boolean;
  /** Why not, when not measured. */
  reason?: string;
  /** What `measureStartup()` returned, kept as is: its shape belongs to its author. */
  result?: unknown;
}

const STARTUP_FILE = resolve(__dirname, 'startup.ts');

/**
 * HOOK: `test/bench/startup.ts` (written separately) exports `measureStartup()`. It is loaded by path at run time,
 * so this benchmark compiles and runs whether or not that file exists yet; when absent the report says so.
 */
export async function measureStartupIfPresent(): Promise<StartupFigures> {
  if (!existsSync(STARTUP_FILE)) return { measured: false, reason: 'test/bench/startup.ts does not exist yet' };
  const module = (await import(pathToFileURL(STARTUP_FILE).href)) as { measureStartup?: () => Promise<unknown> };
  if (typeof module.measureStartup !== 'function') return { measured: false, reason: 'test/bench/startup.ts exports no measureStartup()' };
  return { measured: true, result: await module.measureStartup() };
}
