// Preload for `BENCH_CPU_PROFILE=<dir>` (NODE_OPTIONS=--import): CPU-profiles a process from start to exit into
// $CPU_PROFILE_DIR as <PROFILE_NAME>-<pid>.cpuprofile (open it in Chrome DevTools or speedscope). The in-process
// inspector session answers synchronously, so the profile is written even from the 'exit' handler.
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
  session.post('Profiler.start');
  let done = false;
  const dump = () => {
    if (done) return;
    done = true;
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      mkdirSync(dir, { recursive: true });
      const name = process.env.PROFILE_NAME ?? basename(process.argv[1] ?? 'node').replace(/\W+/g, '_');
      writeFileSync(join(dir, `${name}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  process.on('exit', dump);
}
