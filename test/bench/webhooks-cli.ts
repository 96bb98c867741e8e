/**
 * `npm run bench:webhooks`: only the webhook scenarios of `npm run bench`, on a system of their own (the figures
 * go to bench-results/webhooks.json; `npm run bench:report` renders BENCHMARKS.md). With BENCH_CPU_PROFILE=<dir>,
 * the gateway, crm, messaging and webhooks processes write a CPU profile there when they stop.
 */
import { resolve } from 'node:path';
import { loadBenchConfig } from './config';
import { startOwnSystem } from './own-system';
import { writeResult } from './results';
import { measureWebhooks } from './webhooks';

const log = (line: string) => console.log(`[bench:webhooks ${new Date().toISOString().slice(11, 19)}] ${line}`);

function profiling(dir: string | undefined) {
  if (!dir) return undefined;
  const preload = resolve(__dirname, 'cpu-profile.mjs');
  const env = (name: string) => ({ NODE_OPTIONS: `--import ${preload}`, CPU_PROFILE_DIR: resolve(dir), PROFILE_NAME: name });
  return { gateway: env('gateway'), crm: env('crm'), messaging: env('messaging'), webhooks: env('webhooks') };
}

async function main(): Promise<void> {
  const config = loadBenchConfig();
  const own = await startOwnSystem({
    crmReplicas: config.crmReplicas,
    webhooksReplicas: config.webhooksReplicas,
    envFor: profiling(process.env.BENCH_CPU_PROFILE),
  });
  try {
    const figures = await measureWebhooks(own, config, log);
    writeResult('webhooks', figures);
    console.log(JSON.stringify(figures, null, 2));
  } finally {
    await own.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
