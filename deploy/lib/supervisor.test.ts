import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceProcess } from './processes';
import { supervise, type SupervisedProcess } from './supervisor';

/** A real child process running `code`, shaped like startService's. */
function node(code: string): ServiceProcess {
  const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  const exited = new Promise<number | null>((done) => child.once('exit', (status) => done(status)));
  return {
    name: 'fake',
    child,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (check: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
};
const logFile = () => join(mkdtempSync(join(tmpdir(), 'supervisor-')), 'fake.log');
let running: SupervisedProcess | undefined;
afterEach(async () => running?.stop('SIGKILL'));

describe('supervise', () => {
  it('restarts a crashed process after a back-off that doubles while it keeps crashing, and logs each restart', async () => {
    const lines: string[] = [];
    const starts: number[] = [];
    running = supervise(
      'fake',
      () => {
        starts.push(Date.now());
        return node('setTimeout(() => process.exit(3), 30)');
      },
      logFile(),
      { initialDelayMs: 100, maxDelayMs: 400, log: (line) => lines.push(line) },
    );
    await until(() => starts.length >= 5);
    const waits = lines.filter((line) => line.includes('exited')).map((line) => /in ([\d.]+) s$/.exec(line)?.[1]);
    expect(waits.slice(0, 4)).toEqual(['0.1', '0.2', '0.4', '0.4']);
    // No restart came before its wait was over.
    const gaps = starts.slice(1).map((at, index) => at - (starts[index] ?? at));
    gaps.slice(0, 4).forEach((gap, index) => expect(gap).toBeGreaterThanOrEqual(Number(waits[index]) * 1000));
    expect(running.restarts).toBeGreaterThanOrEqual(4);
    expect(lines[0]).toMatch(/^\[supervisor\] fake exited unexpectedly \(code 3\) after .* s; restart 1 in 0\.1 s$/);
    expect(lines).toContainEqual(expect.stringMatching(/^\[supervisor\] fake restarted \(pid \d+\)$/));
  });

  it('restarts a process killed by a signal, which then keeps running', async () => {
    running = supervise('fake', () => node('setInterval(() => {}, 1000)'), logFile(), { initialDelayMs: 50, log: () => undefined });
    const first = running.child.pid;
    running.child.kill('SIGKILL');
    await until(() => running?.state === 'running' && running.child.pid !== first);
    expect(running.restarts).toBe(1);
    expect(running.snapshot().lastExit).toMatchObject({ code: null, signal: 'SIGKILL' });
  });

  it('leaves a process stopped on purpose down until start()', async () => {
    running = supervise('fake', () => node('setInterval(() => {}, 1000)'), logFile(), { initialDelayMs: 50, log: () => undefined });
    await running.stop('SIGKILL');
    await sleep(300);
    expect(running.state).toBe('stopped');
    expect(running.snapshot().pid).toBeNull();
    running.start();
    expect(running.state).toBe('running');
    expect(running.restarts).toBe(0);
  });
});
