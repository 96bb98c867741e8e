import { z } from 'zod';
import { component, nullable, timestamp } from './registry';

export const Webhook = component(
  'Webhook',
  z.object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    events: z.array(z.string()).default([]),
    secret: z.string().optional().describe('The signing secret (whsec_…); only in the answers of POST /v1/webhooks and rotate-secret'),
    status: z.enum(['active', 'paused']),
    consecutive_failures: z.number().int().default(0),
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
    pending_deliveries: z
      .number()
      .int()
      .default(0)
      .describe('deliveries not yet done: on their first attempt, waiting for a retry, or held while paused'),
    lag_seconds: nullable(z.number()).describe(
      'age of the oldest of those deliveries: how far behind the subscription is (null when nothing is pending)',
    ),
  }),
  'A webhook subscription.',
);

export const EventType = component(
  'EventType',
  z.object({ type: z.string(), description: z.string(), api_write: z.boolean().default(false) }),
  'An event kind that can be subscribed to; api_write is true for the 21 kinds API writes emit.',
);

const DeliveryAttempt = component(
  'WebhookDeliveryAttempt',
  z.object({
    attempt: z.number().int(),
    attempted_at: timestamp,
    response_status: nullable(z.number().int()),
    error: nullable(z.string()),
    duration_ms: z.number().int().default(0),
    response_excerpt: nullable(z.string()),
  }),
);

const deliveryFields = {
  id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempt: z.number().int().default(0).describe('attempts made so far, 0–5'),
  response_status: nullable(z.number().int()),
  response_excerpt: nullable(z.string()).describe('the first 1 KB of the answer'),
  error: nullable(z.string()).describe('timeout, connection_error or http_<status>'),
  duration_ms: nullable(z.number().int()),
  next_retry_at: nullable(timestamp),
  redelivery_of: nullable(z.string()),
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
