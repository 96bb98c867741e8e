import type { Logger } from '@crm/shared';
import type { AllowList } from '../delivery/address-guard';
import type { DeliveryRecord, DeliveryRepository } from '../repository/delivery.repository';
import type { EventStoreRepository } from '../repository/event-store.repository';
import type { ReplayRepository } from '../repository/replay.repository';
import type { WebhookRecord, WebhookRepository } from '../repository/webhook.repository';
import type { AttemptRecorder } from './attempt-recorder';
import type { ManualAttemptGate } from './manual-attempt-gate';
import type { SubscriptionCache } from './subscription-cache';
import type { UnstoredPart } from './unstored-part';

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
  /** Subscriptions one organization may have. */
  maxSubscriptions: number;
  /** The attempt timeout of test and redeliver, which a gateway request waits for. */
  manualTimeoutMs: number;
  /** How long consumed events are kept for GET /v1/events and replays. */
  eventRetentionMs: number;
}

/**
 * A delivery leased to this replica, with its subscription when the caller has it at hand, and the part it is
 * stored with when its first attempt goes out before it is stored (the fan-out's).
 */
export interface LeasedDelivery {
  delivery: DeliveryRecord;
  webhook?: WebhookRecord;
  part?: UnstoredPart;
}

/** Everything a domain function may touch, wired once in main.ts. */
export interface WebhookDeps {
  webhooks: WebhookRepository;
  deliveries: DeliveryRepository;
  /** Every consumed event, per organization (GET /v1/events, replays). */
  events: EventStoreRepository;
  /** Replay jobs (POST /v1/webhooks/{id}/replay). */
  replays: ReplayRepository;
  settings: DeliverySettings;
  /** This replica's lease owner id. */
  owner: string;
  /** Caps the test sends and redeliveries in flight per organization. */
  manualAttempts: ManualAttemptGate;
  /** Stores attempts in batches and applies the pause rules. */
  recorder: AttemptRecorder;
  /** Subscriptions as the worker sends to them (at most a second old). */
  subscriptions: SubscriptionCache;
  /**
   * Hands the worker deliveries leased to this replica (their first attempt goes out without a database scan, and
   * before they are stored when they come with their part), or, without records, wakes it to scan for due ones
   * (held deliveries resumed).
   */
  deliveriesQueued: (leased?: LeasedDelivery[]) => void;
  /** Wakes this replica's replay worker (a replay was stored). */
  replaysQueued: () => void;
  now: () => Date;
  logger: Logger;
}
