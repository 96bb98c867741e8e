import type { Logger } from '@crm/shared';
import type { DeliveryRepository } from '../repository/delivery.repository';

/**
 * Deletes deliveries past their `expires_at` (15 days). FerretDB has no TTL indexes, so a sweeper on an indexed
 * field does what `expireAfterSeconds` would; it is harmless to run on several replicas at once.
 */
export function startRetentionSweeper(deliveries: DeliveryRepository, options: { intervalMs: number; logger: Logger; now?: () => Date }): { stop(): void } {
  const sweep = async () => {
    try {
      const deleted = await deliveries.deleteExpired((options.now ?? (() => new Date()))());
      if (deleted > 0) options.logger.info({ deleted }, 'expired deliveries removed');
    } catch (error) {
      options.logger.warn({ err: error }, 'delivery retention sweep failed');
    }
  };
  void sweep();
  const timer = setInterval(() => void sweep(), options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
