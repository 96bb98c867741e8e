import { EVENT_TYPE_NAMES } from '@crm/shared/schemas';
import { z } from 'zod';
import { component, count, id, nullable, timestamp } from './registry';

/** The status a receiver answered. */
const httpStatus = z.number().int().min(100).max(599);

const webhookFields = {
  id: id('webhook'),
  name: z.string(),
  url: z.url(),
  events: z.array(z.enum(EVENT_TYPE_NAMES)).default([]),
  status: z.enum(['active', 'paused']),
  consecutive_failures: count.default(0),
  last_delivery_at: nullable(timestamp).describe('time of the last successful delivery'),
  last_failure_at: nullable(timestamp),
  last_failure_reason: nullable(z.string()).describe('timeout, connection_error, http_<status>, or blocked_address: <why>'),
  paused_reason: nullable(z.enum(['consecutive_failures', 'manual', 'api_key_revoked'])).describe(
    'why a paused subscription is paused (null while active); api_key_revoked: the key it answers to (key_id) was revoked or expired, and a key holding the read scopes of its kinds reactivates it',
  ),
  key_id: nullable(z.string()).describe(
    'the API key that created the subscription or last changed it (key_…); revoking it pauses the subscription',
  ),
  previous_secret_expires_at: nullable(timestamp).describe(
    'while set, deliveries are also signed with the secret the last rotation replaced',
  ),
  created_at: timestamp,
  updated_at: timestamp,
  pending_deliveries: count
    .default(0)
    .describe('deliveries not yet done: on their first attempt, waiting for a retry, or held while paused'),
  lag_seconds: nullable(z.number().min(0)).describe(
    'age of the oldest of those deliveries: how far behind the subscription is (null when nothing is pending)',
  ),
};

export const Webhook = component(
  'Webhook',
  z.object(webhookFields),
  'A webhook subscription (its secret is shown only once: WebhookWithSecret).',
);

export const WebhookWithSecret = component(
  'WebhookWithSecret',
  z.object({
    ...webhookFields,
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=]+$/)
      .describe('The signing secret; only in the answers of POST /v1/webhooks and rotate-secret, so keep it then'),
  }),
  'A webhook subscription with its signing secret: the answer of its creation and of a rotation.',
);

export const EventType = component(
  'EventType',
  z.object({ type: z.enum(EVENT_TYPE_NAMES), description: z.string(), api_write: z.boolean().default(false) }),
  'An event kind that can be subscribed to; api_write is true for the 21 kinds API writes emit.',
);

const DeliveryAttempt = component(
  'WebhookDeliveryAttempt',
  z.object({
    attempt: z.number().int().min(1),
    attempted_at: timestamp,
    response_status: nullable(httpStatus),
    error: nullable(z.string()),
    duration_ms: count.default(0),
    response_excerpt: nullable(z.string()),
  }),
);

const deliveryFields = {
  id: id('delivery'),
  webhook_id: id('webhook'),
  event_id: id('event'),
  event_type: z.enum(EVENT_TYPE_NAMES),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempt: count.default(0).describe('attempts made so far'),
  response_status: nullable(httpStatus),
  response_excerpt: nullable(z.string()).describe('the first 1 KB of the answer'),
  error: nullable(z.string()).describe('timeout, connection_error or http_<status>'),
  duration_ms: nullable(count),
  next_retry_at: nullable(timestamp),
  redelivery_of: nullable(id('delivery')),
  is_test: z.boolean().default(false),
  created_at: timestamp,
  completed_at: nullable(timestamp),
  attempts: z.array(DeliveryAttempt).default([]).describe('every attempt, oldest first'),
};

export const WebhookDelivery = component(
  'WebhookDelivery',
  z.object(deliveryFields),
  'One event sent to one subscription, with its attempts (kept 15 days).',
);

/** The service answers {delivery, request_headers, request_body}; the API flattens it. */
export const WebhookDeliveryDetail = component(
  'WebhookDeliveryDetail',
  z.object({
    ...deliveryFields,
    request_headers: z.record(z.string(), z.string()).default({}),
    request_body: z.string().describe('the exact raw body that was signed'),
  }),
  'A delivery with the headers of its last attempt and the exact body sent.',
);
