import { localStackRunning, startLocalStack, stopLocalStack, type StackEnv } from '../../deploy/lib/local-stack';

/**
 * The real stack for one test run: started unless it runs already or MONGODB_URI and KAFKA_BROKERS point at servers
 * of their own; `release` stops it only when this run started it.
 */
export async function stackForRun(): Promise<{ stack: StackEnv; release(): Promise<void> }> {
  const external = Boolean(process.env.MONGODB_URI && process.env.KAFKA_BROKERS);
  const wasRunning = external || (await localStackRunning());
  const stack = await startLocalStack();
  return { stack, release: async () => (wasRunning ? undefined : stopLocalStack()) };
}
