import type { Logger } from '@crm/shared';
import type { AllowList } from '../delivery/address-guard';
import type { DeliveryRecord, DeliveryRepository } from '../repository/delivery.repository';
import type { WebhookRepository } from '../repository/webhook.repository';

/** Delivery rules taken from the configuration. */
export interface DeliverySettings {
  allowList: AllowList;
  /** Wait before each attempt; its length is the number of attempts. */
  scheduleMs: readonly number[];
  timeoutMs: number;
  pauseAfterFailures: number;
  leaseMs: number;
  retentionMs: number;
  rotationOverlapHours: number;
}

/** Everything a domain function may touch, wired once in main.ts. */
export interface WebhookDeps {
  webhooks: WebhookRepository;
  deliveries: DeliveryRepository;
  settings: DeliverySettings;
  /** This replica's lease owner id. */
  owner: string;
  /**
   * Hands the worker deliveries this replica stored already leased (their first attempt goes out without a
   * database scan), or, without records, wakes it to scan for due ones (held deliveries resumed).
   */
  deliveriesQueued: (leased?: DeliveryRecord[]) => void;
  now: () => Date;
  logger: Logger;
}
