import { z } from 'zod';
import { component, timestamp } from './registry';

export const Event = component(
  'Event',
  z.object({
    id: z.string().describe('the event id (evt_…), as webhooks deliver it'),
    type: z.string().describe('the event kind (GET /v1/webhooks/event-types)'),
    created_at: timestamp,
    api_version: z.literal('v1'),
    data: z.record(z.string(), z.unknown()).describe('the payload of the kind, exactly as webhooks deliver it'),
    request_id: z
      .string()
      .nullable()
      .describe('meta.request_id of the API request whose write raised the event; null for events of the platform'),
  }),
  'A stored event: exactly the body a webhook receives, plus the API request that caused it.',
);

/** A stored event from the webhook service (its exact webhook body) in the public shape. */
export const publicEvent = (stored: {
  body: string;
  request_id?: string | null | undefined;
}): { type?: unknown; [field: string]: unknown } => ({
  ...(JSON.parse(stored.body) as Record<string, unknown>),
  request_id: stored.request_id ?? null,
});
