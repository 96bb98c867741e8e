/**
 * `npm run bench:webhooks`: only the webhook scenarios of `npm run bench`, on a system of their own (the figures
 * go to bench-results/webhooks.json; `npm run bench:report` renders BENCHMARKS.md). With BENCH_CPU_PROFILE=<dir>,
 * the gateway, crm, messaging and webhooks processes write a CPU profile there when they stop; with
 * BENCH_PROFILE_DRAIN=1 as well, the webhooks replicas profile the backlog's drain only (resume → last delivery).
 */
import { loadBenchConfig } from './config';
import { cpuProfileEnv, startOwnSystem } from './own-system';
import { writeResult } from './results';
import { measureWebhooks } from './webhooks';

const log = (line: string) => console.log(`[bench:webhooks ${new Date().toISOString().slice(11, 19)}] ${line}`);

function profileEnv() {
  const env = cpuProfileEnv(['gateway', 'crm', 'messaging', 'webhooks']);
  if (env?.webhooks && process.env.BENCH_PROFILE_DRAIN === '1') env.webhooks.CPU_PROFILE_ON_SIGNAL = '1';
  return env;
}

async function main(): Promise<void> {
  const config = loadBenchConfig();
  const own = await startOwnSystem({
    crmReplicas: config.crmReplicas,
    webhooksReplicas: config.webhooksReplicas,
    envFor: profileEnv(),
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
