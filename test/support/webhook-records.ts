import { createLogger, newId, type Storage } from '@crm/shared';
import { loadWebhooksConfig } from '../../services/webhooks/src/config';
import type { SendResult } from '../../services/webhooks/src/delivery/http-sender';
import type { WebhookDeps } from '../../services/webhooks/src/domain/deps';
import { newDelivery } from '../../services/webhooks/src/domain/event-body';
import type { DeliveryRecord } from '../../services/webhooks/src/repository/delivery.record';
import { newWebhookRecord, type WebhookRecord } from '../../services/webhooks/src/repository/webhook.repository';
import { createDeps } from '../../services/webhooks/src/wiring';
import { REQUIRED_SETTINGS } from './integration';

/** A stored subscription of `orgId` to contact.created, active, as tests insert or hand to a dispatcher. */
export const webhookRecord = (orgId: string, fields: Partial<WebhookRecord> = {}): WebhookRecord => ({
  ...newWebhookRecord(
    {
      org_id: orgId,
      name: 'Receiver',
      url: 'https://hooks.example/receive',
      events: ['contact.created'],
      secret: 'whsec_plain-secret-value',
      key_id: null,
    },
    new Date(),
  ),
  ...fields,
});

/** A stored delivery of one event to `webhookId`, pending and due, not leased (tests override any field). */
export const deliveryRecord = (orgId: string, webhookId: string, fields: Partial<DeliveryRecord> = {}): DeliveryRecord => ({
  ...newDelivery({
    webhook: { id: webhookId, org_id: orgId } as WebhookRecord,
    eventId: newId('event'),
    eventType: 'contact.created',
    body: '{}',
    now: new Date(),
    retentionMs: 86_400_000,
    fromStream: true,
  }),
  next_attempt_at: new Date(Date.now() - 1_000),
  ...fields,
});

/** What the HTTP sender answers for a receiver that replied `statusCode` (2xx: success). */
export const sendResult = (statusCode: number, fields: Partial<SendResult> = {}): SendResult => ({
  ok: statusCode < 300,
  statusCode,
  error: statusCode < 300 ? null : `http_${statusCode}`,
  durationMs: 3,
  responseExcerpt: null,
  retryAfter: null,
  pauseSubscription: statusCode === 410,
  errorDetail: null,
  ...fields,
});

/** The webhook service's deps over a test database, with no worker behind them. */
export const webhookTestDeps = (storage: Storage): WebhookDeps =>
  createDeps(storage, loadWebhooksConfig(REQUIRED_SETTINGS), createLogger('test', 'silent'), {
    deliveriesQueued: () => undefined,
    replaysQueued: () => undefined,
    paused: () => undefined,
  });
