import type { SendResult } from '../delivery/http-sender';
import type { DeliveryRecord } from '../repository/delivery.record';
import type { WebhookRecord } from '../repository/webhook.repository';
import type { AttemptOutcome } from './attempt-outcome';
import type { DeliveryTrigger } from './delivery-metrics';

/** One attempt made: what was sent, what came back, and what it means for the delivery. */
export interface AttemptResult {
  delivery: DeliveryRecord;
  webhook: WebhookRecord;
  trigger: DeliveryTrigger;
  headers: Record<string, string>;
  result: SendResult;
  outcome: AttemptOutcome;
  /** When the answer (or the timeout) came. */
  at: Date;
}
