import { z } from 'zod';
import { trimmedText } from './common';
import { documented } from './validation';
import { EVENT_TYPE_NAMES } from './webhook-events';

export * from './webhook-events';

export const WEBHOOK_STATUSES = ['active', 'paused'] as const;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** Unknown kinds answer VALIDATION_ERROR whose details list every valid kind (`allowed`). */
export const eventTypeSchema = z.enum(EVENT_TYPE_NAMES, { message: 'is not a known event kind (see GET /v1/webhooks/event-types)' });

const nameSchema = trimmedText(100);
/** The shape only; the webhook service applies the address rules (https, no private hosts) with its allow-list. */
/**
 * An absolute http(s) URL without credentials, as sent (not trimmed); the webhook service also asks for https on a
 * public host unless the deployment allow-lists it, which depends on the deployment (said in the description).
 */
const urlSchema = documented(z.string().min(1).max(2048, 'must be at most 2048 characters'), {
  format: 'uri',
  pattern: '^https?://[^\\s/?#@]+([/?#]\\S*)?$',
  description: 'https on a public host (loopback, private, link-local and metadata addresses are refused unless allow-listed)',
});
const eventsSchema = z
  .array(eventTypeSchema)
  .min(1, 'at least one event kind')
  .max(EVENT_TYPE_NAMES.length)
  .transform((events) => [...new Set(events)]);

/** POST /v1/webhooks */
export const createWebhookBody = z.strictObject({ name: nameSchema, url: urlSchema, events: eventsSchema });

/** PATCH /v1/webhooks/{id}: `status: active` reactivates (and resets consecutive_failures); `paused` pauses by hand. */
export const updateWebhookBody = z.strictObject({
  name: nameSchema.optional(),
  url: urlSchema.optional(),
  events: eventsSchema.optional(),
  status: z.enum(WEBHOOK_STATUSES).optional(),
});

/** POST /v1/webhooks/{id}/rotate-secret (designed addition): how long the replaced secret keeps signing. */
export const rotateSecretBody = z.strictObject({
  overlap_hours: z.number().int('must be an integer').min(0, 'must be at least 0').max(168, 'must be at most 168').optional(),
});

/** POST /v1/webhooks/{id}/test */
export const testWebhookBody = z.strictObject({ event_type: eventTypeSchema.optional() });

export type CreateWebhookBody = z.infer<typeof createWebhookBody>;
export type UpdateWebhookBody = z.infer<typeof updateWebhookBody>;
