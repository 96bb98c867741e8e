import { EVENT_KINDS } from '@crm/shared/schemas';
import { eventDataSchema } from './event-data';
import type { JsonSchema } from './json-schema';

/** The delivery headers (services/webhooks/src/delivery/signing.ts signPayload), as receivers see them. */
const DELIVERY_HEADERS: JsonSchema[] = [
  {
    name: 'X-Webhook-Signature',
    in: 'header',
    required: true,
    description:
      'sha256=<hex HMAC-SHA256 of "<X-Webhook-Timestamp>.<raw body>", keyed with the whole secret string (whsec_…)>; during a secret rotation two entries, newest first, separated by a comma. Accept the request if any entry matches.',
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}(,sha256=[0-9a-f]{64})*$' },
    example: 'sha256=5d41402abc4b2a76b9719d911017c592a1f0e3b0c44298fc1c149afbf4c8996f',
  },
  {
    name: 'X-Webhook-Timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds at signing, part of the signed string; reject values more than 5 minutes from your clock.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1772461800',
  },
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: the event id (deduplicate on it).',
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: the same unix seconds.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>"> entries separated by spaces.',
    schema: { type: 'string' },
  },
  { name: 'User-Agent', in: 'header', required: true, schema: { type: 'string', const: 'crm-webhooks/1' } },
];

const RECEIVER_RESPONSES = {
  '2XX': { description: 'Received: any 2xx within the timeout (10 s by default) acknowledges the delivery; the body is ignored.' },
  '410': { description: 'Gone: the subscription is paused, no retry.' },
  default: {
    description:
      'Anything else (another status, a redirect, a timeout or a connection error) fails the attempt: it is retried on the schedule (0 s, 5 min, 30 min, 2 h, 8 h; 5 attempts), honouring Retry-After.',
  },
};

/** The envelope every delivery body has (services/webhooks/src/domain/event-body.ts), with the kind's `data`. */
function deliveryBody(type: string, data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['id', 'type', 'created_at', 'api_version', 'data'],
    properties: {
      id: {
        type: 'string',
        pattern: '^evt_[0-9A-Za-z]{22}$',
        description: 'The event id; deliveries are at least once, deduplicate on it',
      },
      type: { type: 'string', const: type },
      created_at: { type: 'string', format: 'date-time' },
      api_version: { type: 'string', const: 'v1' },
      data,
    },
  };
}

/** The `webhooks` section: one POST per subscribable kind, the body and headers exactly as delivered. */
export function webhookEntries(example: (schema: JsonSchema) => unknown): Record<string, JsonSchema> {
  const entries: Record<string, JsonSchema> = {};
  for (const kind of EVENT_KINDS) {
    const schema = deliveryBody(kind.type, eventDataSchema(kind.type));
    entries[kind.type] = {
      post: {
        operationId: `webhook_${kind.type.replaceAll('.', '_')}`,
        summary: kind.type,
        description: `${kind.description}${kind.api_write ? '' : ' Emitted by the platform, not by an API write.'}`,
        tags: ['Webhook events'],
        // Receivers authenticate the sender by the signature headers, not by a credential of this API.
        security: [],
        parameters: DELIVERY_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema, example: example(schema) } } },
        responses: RECEIVER_RESPONSES,
      },
    };
  }
  return entries;
}
