import type { Logger } from './logger';

type Step = { name: string; run: () => unknown };

/**
 * Runs shutdown steps in the order they were registered (stop accepting → drain → stop consumers → flush the
 * producer → close connections) on SIGTERM or SIGINT, once, then exits.
 */
export function onShutdown(logger: Logger, steps: Step[], timeoutMs = 20_000): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    force.unref();
    for (const step of steps) {
      try {
        logger.debug({ step: step.name }, 'shutdown step');
        await step.run();
      } catch (error) {
        logger.error({ err: error, step: step.name }, 'shutdown step failed');
      }
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
