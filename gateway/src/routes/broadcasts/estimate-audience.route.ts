import { estimateAudienceBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { AudienceEstimate } from '../../schemas/broadcast.schemas';

export const estimateAudienceRoute = defineRoute({
  operationId: 'estimateBroadcastAudience',
  method: 'POST',
  path: '/v1/broadcasts/audience/estimate',
  tag: 'Broadcasts',
  summary: 'Estimate an audience',
  description: [
    'Counts the contacts a broadcast with this audience would reach and those the exclusion rules leave out (no chatapp number, a number already reached by another contact, and, with a marketing cloudTemplate, a marketing opt-out), with the breakdown by reason.',
    'Without cloudTemplate the marketing opt-out is not applied, so an official marketing send reaches fewer contacts than estimated.',
  ].join('\n\n'),
  scope: 'read:broadcasts',
  body: estimateAudienceBody,
  success: { status: 200, kind: 'one', schema: AudienceEstimate },
  errors: [
    'INVALID_JSON',
    'UNKNOWN_FIELDS',
    'VALIDATION_ERROR',
    'INVALID_ID',
    'INVALID_REFERENCE',
    'MIXED_PROVIDERS',
    'TEMPLATE_NOT_FOUND',
  ],
  handle: ({ body, principal, clients }) =>
    clients.broadcasts.estimateAudience({ org_id: principal.orgId, id: '', body, plan: principal.plan }),
});
