import { DEV_CALLBACK_SECRET, DEV_PROVIDER_TOKEN, envPort, loadConfig } from '@crm/shared';
import { z } from 'zod';
import { startSimulator } from './simulator';

const schema = z.object({
  SIM_HOST: z.string().default('127.0.0.1'),
  SIM_PORT: envPort(8090),
  /**
   * Where provider callbacks go: the messaging service's callback listener, or a comma list of its replicas'
   * listeners, which the simulator spreads callbacks over like the load balancer in front of them would.
   */
  SIM_CALLBACK_URL: z
    .string()
    .default('http://127.0.0.1:8082')
    .transform((value) => value.split(',').map((url) => url.trim()))
    .pipe(z.array(z.string().url()).min(1)),
  PROVIDER_CALLBACK_SECRET: z.string().min(8).default(DEV_CALLBACK_SECRET),
  PROVIDER_TOKEN: z.string().min(1).default(DEV_PROVIDER_TOKEN),
  SIM_STATUS_DELAY_MS: z.coerce.number().int().min(0).default(300),
  SIM_HOLD_MS: z.coerce.number().int().min(0).default(10_000),
});

/** The provider simulator as a process (npm start and the tests run it). */
async function main(): Promise<void> {
  const config = loadConfig(schema);
  const simulator = await startSimulator({
    host: config.SIM_HOST,
    port: config.SIM_PORT,
    callbackUrls: config.SIM_CALLBACK_URL,
    callbackSecret: config.PROVIDER_CALLBACK_SECRET,
    token: config.PROVIDER_TOKEN,
    statusDelayMs: config.SIM_STATUS_DELAY_MS,
    holdMs: config.SIM_HOLD_MS,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`${JSON.stringify({ msg: 'provider simulator listening', port: simulator.port })}\n`);
  const stop = () => void simulator.stop().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
