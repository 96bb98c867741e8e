import type { WebhooksConfig } from '../config';
import type { WebhookDeps } from '../domain/deps';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { DueScanner } from './due-scanner';
import { observeSubscriptionLag } from './lag-metrics';

/** The delivery worker: the fair dispatcher of this replica's leased deliveries, and the scanner of due ones. */
export function deliveryWorker(deps: WebhookDeps, config: WebhooksConfig) {
  const dispatcher: DeliveryDispatcher = new DeliveryDispatcher(
    deps,
    {
      concurrency: config.WEBHOOK_WORKER_CONCURRENCY,
      endpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY,
      orgConcurrency: config.WEBHOOK_ORG_CONCURRENCY,
      endpointQueue: config.WEBHOOK_ENDPOINT_QUEUE,
      queue: config.WEBHOOK_QUEUE,
      unrecorded: config.WEBHOOK_MAX_UNRECORDED,
      slowAnswerMs: config.WEBHOOK_SLOW_ANSWER_MS,
      maxInFlight: config.WEBHOOK_MAX_IN_FLIGHT,
    },
    () => scanner.nudge(),
    (at) => scanner.retryAt(at),
  );
  const scanner = new DueScanner(deps, dispatcher, config.WEBHOOK_IDLE_CHECK_MS);
  let stopObserving = () => {};
  return {
    dispatcher,
    scanner,
    start(): void {
      dispatcher.start();
      scanner.start();
      stopObserving = observeSubscriptionLag(deps.deliveries, deps.now);
    },
    /** The scanner first (no new claims), then the dispatcher (queued ones given back, attempts in flight finished and stored). */
    async stop(): Promise<void> {
      stopObserving();
      await scanner.stop();
      await dispatcher.stop();
    },
  };
}
