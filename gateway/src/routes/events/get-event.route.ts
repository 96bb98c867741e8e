import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { publicEvent, Event } from '../../schemas/event.schemas';
import { requireKindScopes } from '../webhooks/kind-scopes';

export const getEventRoute = defineRoute({
  operationId: 'getEvent',
  method: 'GET',
  path: '/v1/events/{id}',
  tag: 'Events',
  summary: 'Read one stored event',
  description:
    'The event exactly as webhooks deliver it, plus request_id; NOT_FOUND once its retention has passed. The key also ' +
    "needs the read scope that guards the event's kind (INSUFFICIENT_SCOPES otherwise).",
  scope: 'read:events',
  params: z.object({ id: idOf('event') }),
  success: { status: 200, kind: 'one', schema: Event },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: async ({ params, principal, clients }) => {
    const event = publicEvent(await clients.events.getEvent({ org_id: principal.orgId, id: params.id }));
    requireKindScopes(principal, 'read:events', [String(event.type)]);
    return event;
  },
});
