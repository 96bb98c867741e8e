/**
 * `npm run bench:webhooks`: only the webhook scenarios of `npm run bench`, on a system of their own (the figures
 * go to bench-results/webhooks.json; `npm run bench:report` renders BENCHMARKS.md). With BENCH_CPU_PROFILE=<dir>,
 * the gateway, crm, messaging and webhooks processes write a CPU profile there when they stop.
 */
import { loadBenchConfig } from './config';
import { cpuProfileEnv, startOwnSystem } from './own-system';
import { writeResult } from './results';
import { measureWebhooks } from './webhooks';

const log = (line: string) => console.log(`[bench:webhooks ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function main(): Promise<void> {
  const config = loadBenchConfig();
  const own = await startOwnSystem({
    crmReplicas: config.crmReplicas,
    webhooksReplicas: config.webhooksReplicas,
    envFor: cpuProfileEnv(['gateway', 'crm', 'messaging', 'webhooks']),
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
