import { updateBroadcastBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Broadcast } from '../../schemas/broadcast.schemas';
import { broadcastIdParams } from './params';

export const updateBroadcastRoute = defineRoute({
  operationId: 'updateBroadcast',
  method: 'PATCH',
  path: '/v1/broadcasts/{id}',
  tag: 'Broadcasts',
  summary: 'Update a broadcast',
  description:
    'Only in draft or scheduled (INVALID_STATUS otherwise). Any subset of BroadcastInput (camelCase); objects and arrays sent replace the stored ones. The references a change touches are checked again.',
  scope: 'write:broadcasts',
  params: broadcastIdParams,
  body: updateBroadcastBody,
  success: { status: 200, kind: 'one', schema: Broadcast },
  errors: [
    'INVALID_ID',
    'NOT_FOUND',
    'INVALID_JSON',
    'UNKNOWN_FIELDS',
    'VALIDATION_ERROR',
    'INVALID_STATUS',
    'INVALID_REFERENCE',
    'MIXED_PROVIDERS',
    'TEMPLATE_ON_QRCODE_BROADCAST',
    'TEMPLATE_NOT_FOUND',
    'TEMPLATE_NOT_APPROVED',
    'PLAN_RESTRICTION',
  ],
  handle: ({ params, body, principal, clients }) =>
    clients.broadcasts.updateBroadcast({ org_id: principal.orgId, id: params.id, body, plan: principal.plan }),
});
