import { appendFileSync } from 'node:fs';
import type { ServiceProcess } from './processes';

export type SupervisedState = 'running' | 'restarting' | 'stopped';

/** What `npm start -- status` shows of a process. */
export interface ProcessSnapshot {
  name: string;
  pid: number | null;
  state: SupervisedState;
  restarts: number;
  /** When the current child started (ms since the epoch). */
  startedAt: number;
  lastExit: { code: number | null; signal: string | null; at: number } | null;
}

/**
 * A process kept running: when it exits on its own it is started again after a back-off, logged; `stop()` stops it
 * on purpose (no restart until `start()`), so a test that kills and restarts a process itself (the chaos suite's
 * rolling restarts) and the supervisor never both start one. `child` and `exited` are those of the current child.
 */
export interface SupervisedProcess extends ServiceProcess {
  readonly restarts: number;
  readonly state: SupervisedState;
  /** No restart from now on (a shutdown is coming: a Ctrl-C reaches the children too, and they exit on their own). */
  hold(): void;
  /** Starts it again after a stop(); returns it (resolves nothing: wait for readiness with its health probe). */
  start(): SupervisedProcess;
  snapshot(): ProcessSnapshot;
}

export interface SupervisorOptions {
  /** First wait before a restart; doubled for each crash that follows a short run, up to maxDelayMs. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A run at least this long counts as healthy: the next crash waits initialDelayMs again. */
  stableAfterMs?: number;
  /** Where restarts are reported (npm start: the console); each is also appended to the process's own log. */
  log?: (line: string) => void;
  /** Called after every change of state (npm start writes its status file). */
  onChange?: () => void;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** Starts `launch()` now and keeps it running (see SupervisedProcess). */
export function supervise(name: string, launch: () => ServiceProcess, logFile: string, options: SupervisorOptions = {}): SupervisedProcess {
  const { initialDelayMs = 250, maxDelayMs = 10_000, stableAfterMs = 30_000 } = options;
  let current = launch();
  let startedAt = Date.now();
  let state: SupervisedState = 'running';
  let restarts = 0;
  let quickCrashes = 0;
  let lastExit: ProcessSnapshot['lastExit'] = null;
  let timer: NodeJS.Timeout | undefined;

  const report = (line: string) => {
    (options.log ?? ((text: string) => console.error(text)))(`[supervisor] ${line}`);
    try {
      appendFileSync(logFile, `${JSON.stringify({ time: Date.now(), msg: `[supervisor] ${line}` })}\n`);
    } catch {
      // the log directory is gone (the system is being removed): the console line is enough
    }
  };
  const changed = () => options.onChange?.();

  const run = () => {
    current = launch();
    startedAt = Date.now();
    state = 'running';
    watch(current);
    changed();
  };

  const watch = (running: ServiceProcess) => {
    void running.exited.then((code) => {
      if (running !== current || state !== 'running') return;
      const ranMs = Date.now() - startedAt;
      lastExit = { code, signal: running.child.signalCode, at: Date.now() };
      quickCrashes = ranMs >= stableAfterMs ? 0 : quickCrashes + 1;
      const delay = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, quickCrashes - 1));
      restarts++;
      state = 'restarting';
      const how = running.child.signalCode ? `signal ${running.child.signalCode}` : `code ${String(code)}`;
      report(`${name} exited unexpectedly (${how}) after ${seconds(ranMs)}; restart ${restarts} in ${seconds(delay)}`);
      changed();
      timer = setTimeout(() => {
        run();
        report(`${name} restarted (pid ${String(current.child.pid)})`);
      }, delay);
    });
  };
  watch(current);

  const supervised: SupervisedProcess = {
    name,
    get child() {
      return current.child;
    },
    get exited() {
      return current.exited;
    },
    get restarts() {
      return restarts;
    },
    get state() {
      return state;
    },
    hold() {
      clearTimeout(timer);
      state = 'stopped';
      changed();
    },
    async stop(signal, timeoutMs) {
      supervised.hold();
      await current.stop(signal, timeoutMs);
    },
    start() {
      if (state === 'stopped') run();
      return supervised;
    },
    snapshot: () => ({ name, pid: state === 'running' ? (current.child.pid ?? null) : null, state, restarts, startedAt, lastExit }),
  };
  return supervised;
}
