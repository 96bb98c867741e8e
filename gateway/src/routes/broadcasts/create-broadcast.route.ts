import { createBroadcastBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Broadcast } from '../../schemas/broadcast.schemas';

export const createBroadcastRoute = defineRoute({
  operationId: 'createBroadcast',
  method: 'POST',
  path: '/v1/broadcasts',
  tag: 'Broadcasts',
  summary: 'Create a broadcast',
  description: [
    'Creates a draft. The body is camelCase (BroadcastInput). Honours Idempotency-Key (24 h).',
    'chatappInstanceIds are all qrcode (send `message`) or all official (send `cloudTemplate`, an APPROVED template of one of the numbers in exactly its language, with the same name and language APPROVED on the others): MIXED_PROVIDERS, TEMPLATE_ON_QRCODE_BROADCAST, TEMPLATE_NOT_FOUND, TEMPLATE_NOT_APPROVED.',
    'audience.filters belongs inside audience; at the root of audience it is refused with UNKNOWN_FIELDS (it would otherwise address the whole base). A contact_field variable needs a fallback.',
    'Plans: broadcasts need starter or above; the aggressive send profile needs pro or above (PLAN_RESTRICTION).',
  ].join('\n\n'),
  scope: 'write:broadcasts',
  body: createBroadcastBody,
  success: { status: 201, kind: 'one', schema: Broadcast },
  errors: [
    'INVALID_JSON',
    'UNKNOWN_FIELDS',
    'VALIDATION_ERROR',
    'INVALID_ID',
    'INVALID_REFERENCE',
    'MIXED_PROVIDERS',
    'TEMPLATE_ON_QRCODE_BROADCAST',
    'TEMPLATE_NOT_FOUND',
    'TEMPLATE_NOT_APPROVED',
    'PLAN_RESTRICTION',
    'IDEMPOTENCY_KEY_REUSED',
    'IDEMPOTENCY_KEY_IN_USE',
  ],
  idempotent: true,
  handle: ({ body, principal, clients }) =>
    clients.broadcasts.createBroadcast({ org_id: principal.orgId, id: '', body, plan: principal.plan }),
});
