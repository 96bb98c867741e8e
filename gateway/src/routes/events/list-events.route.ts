import { EVENT_TYPE_NAMES } from '@crm/shared/events';
import { documented, eventTypeSchema, trimmedText } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { publicEvent, Event } from '../../schemas/event.schemas';
import { isoQuery, pageQuery } from '../../schemas/registry';
import { readableKinds, requireKindScopes } from '../webhooks/kind-scopes';

/** `type=a,b` or `type=a&type=b`: one or several kinds. */
const typesQuery = documented(
  z
    .union([z.string(), z.array(z.string())])
    .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((entry) => entry.split(',')).map((entry) => entry.trim()))
    .pipe(z.array(eventTypeSchema).max(EVENT_TYPE_NAMES.length))
    .describe('one or several kinds, comma-separated or repeated (type=contact.created,deal.updated)'),
  // The kinds themselves (a comma-separated list of them is accepted too).
  {
    anyOf: [
      { type: 'string', enum: EVENT_TYPE_NAMES },
      { type: 'array', items: { type: 'string', enum: EVENT_TYPE_NAMES }, maxItems: EVENT_TYPE_NAMES.length },
    ],
  },
);

export const listEventsRoute = defineRoute({
  operationId: 'listEvents',
  method: 'GET',
  path: '/v1/events',
  tag: 'Events',
  summary: 'Every event of the organization, newest first',
  description:
    'Every event the services emitted for the organization, whether or not a subscription wanted it, kept 30 days ' +
    '(EVENTS_RETENTION_DAYS). Each is exactly the body webhooks receive plus request_id. Filters: type (one or ' +
    'several), created_after (inclusive), created_before (exclusive), object_id (a record the event is about: its ' +
    'object, a note and its deal or contact, a tagged contact…). meta.total counts the stored events without filters. ' +
    'The key also needs the read scope that guards each kind (GET /v1/webhooks/event-types: scope): naming a kind ' +
    'it cannot read answers INSUFFICIENT_SCOPES; without type, only the kinds it can read are listed.',
  scope: 'read:events',
  query: z.object({
    ...pageQuery,
    type: typesQuery.optional(),
    created_after: isoQuery.optional(),
    created_before: isoQuery.optional(),
    object_id: trimmedText(100).optional(),
  }),
  success: { status: 200, kind: 'list', schema: Event },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: async ({ query, principal, clients, page }) => {
    if (query.type) requireKindScopes(principal, 'read:events', query.type);
    // Undefined: every kind (the key reads them all); an empty list: none at all.
    const types = query.type ?? readableKinds(principal);
    if (types?.length === 0) return { items: [], page: { total: 0, has_more: false } };
    const result = await clients.events.listEvents({
      org_id: principal.orgId,
      page,
      filter: {
        types: types ?? [],
        created_after: query.created_after,
        created_before: query.created_before,
        object_id: query.object_id,
      },
    });
    return { items: result.items.map(publicEvent), page: result.page };
  },
});
