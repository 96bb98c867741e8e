import type { Logger } from './logger';

export type ShutdownStep = { name: string; run: () => unknown };

/**
 * Runs shutdown steps in the order they were registered (stop accepting → drain → stop consumers → flush the
 * producer → close connections) on SIGTERM or SIGINT, once, then exits 0. Register it before start-up begins:
 * `steps` is read when the signal arrives, so a signal during start-up (a rolling update, a pod deleted while it
 * joins its consumer groups) stops what has started and exits 0 instead of dying by the signal. The returned
 * signal aborts at the first SIGTERM or SIGINT: start-up starts nothing more once it has.
 */
export function onShutdown(logger: Logger, steps: ShutdownStep[] | (() => ShutdownStep[]), timeoutMs = 20_000): AbortSignal {
  const stopping = new AbortController();
  const shutdown = async (signal: string) => {
    if (stopping.signal.aborted) return;
    stopping.abort();
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    force.unref();
    for (const step of typeof steps === 'function' ? steps() : steps) {
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
  return stopping.signal;
}
