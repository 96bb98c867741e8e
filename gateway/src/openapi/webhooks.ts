import { EVENT_KINDS, eventSpec, type EventKind } from '@crm/shared/events';
import { z } from 'zod';
import type { JsonSchema } from './json-schema';

/** The time of the examples: the same instant as the rest of the document's examples. */
const EXAMPLE_AT = new Date('2026-03-02T14:30:00.000Z');
const EXAMPLE_EVENT_ID = 'evt_7Yq2RkXw9LmB4cVnP0sHdA';

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

/** The JSON Schema of a kind's `data`, from the event catalogue's zod schema: what producers must build. */
function dataSchema(kind: EventKind): JsonSchema {
  const { $schema: _schema, ...schema } = z.toJSONSchema(eventSpec(kind.type).data, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  return schema;
}

function description(kind: EventKind): string {
  const emitted = kind.api_write ? 'Emitted by API writes.' : 'Emitted by the platform, not by an API write.';
  return `${kind.description} ${emitted} Its data is what the \`${kind.scope}\` scope guards on the read routes.`;
}

/**
 * The `webhooks` section, generated from the event catalogue (services/shared/src/events): one POST per
 * subscribable kind, the body and headers exactly as delivered, with the catalogue's example of `data`.
 */
export function webhookEntries(): Record<string, JsonSchema> {
  const entries: Record<string, JsonSchema> = {};
  for (const kind of EVENT_KINDS) {
    const schema = deliveryBody(kind.type, dataSchema(kind));
    const example = {
      id: EXAMPLE_EVENT_ID,
      type: kind.type,
      created_at: EXAMPLE_AT.toISOString(),
      api_version: 'v1',
      data: eventSpec(kind.type).example(EXAMPLE_AT),
    };
    entries[kind.type] = {
      post: {
        operationId: `webhook_${kind.type.replaceAll('.', '_')}`,
        summary: kind.type,
        description: description(kind),
        'x-scope': kind.scope,
        'x-producer': kind.producer,
        tags: ['Webhook events'],
        // Receivers authenticate the sender by the signature headers, not by a credential of this API.
        security: [],
        parameters: DELIVERY_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema, example } } },
        responses: RECEIVER_RESPONSES,
      },
    };
  }
  return entries;
}
