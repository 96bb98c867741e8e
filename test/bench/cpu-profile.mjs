// Preload (NODE_OPTIONS=--import) that CPU-profiles a process into $CPU_PROFILE_DIR as
// <PROFILE_NAME>-<pid>.cpuprofile: Chrome DevTools' format, which speedscope (https://www.speedscope.app) and
// DevTools open as a flame graph. By default from start to exit; with CPU_PROFILE_ON_SIGNAL=1 only between two
// SIGUSR2 (the load window of `npm run profile`, not the start-up). The in-process inspector session answers
// synchronously, so the profile is written even from the 'exit' handler.
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { basename, join } from 'node:path';
import process from 'node:process';

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  let state = 'idle';
  const start = () => {
    session.post('Profiler.start');
    state = 'running';
  };
  const dump = () => {
    if (state !== 'running') return;
    state = 'done';
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      mkdirSync(dir, { recursive: true });
      const name = process.env.PROFILE_NAME ?? basename(process.argv[1] ?? 'node').replace(/\W+/g, '_');
      writeFileSync(join(dir, `${name}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  if (process.env.CPU_PROFILE_ON_SIGNAL === '1') process.on('SIGUSR2', () => (state === 'idle' ? start() : dump()));
  else start();
  process.on('exit', dump);
}
