import { AppError } from '@crm/shared/core';
import { defineRoute, type HttpMethod, type RouteDefinition } from '../../http/route';

/**
 * Message credits are discontinued (spec §1): the routes stay published and answer 410 with the explanation.
 * Authentication runs; no scope is checked so that a 403 never hides the explanation; a body is ignored.
 */
function discontinued(operationId: string, method: HttpMethod, path: string, summary: string): RouteDefinition {
  return defineRoute({
    operationId,
    method,
    path,
    tag: 'Message credits (discontinued)',
    summary,
    description:
      'Discontinued: official-channel charges are billed by the cloud provider directly. Always answers 410 FEATURE_DISCONTINUED.',
    scope: null,
    success: { status: 410, kind: 'gone' },
    errors: ['FEATURE_DISCONTINUED'],
    deprecated: true,
    handle: () => {
      throw new AppError('FEATURE_DISCONTINUED', undefined, { feature: 'message_credits', billed_by: 'cloud_provider' });
    },
  });
}

export const messageCreditRoutes = [
  discontinued('getMessageCredits', 'GET', '/v1/message-credits', 'Message credit balance (discontinued)'),
  discontinued('listMessageCreditTransactions', 'GET', '/v1/message-credits/transactions', 'Message credit transactions (discontinued)'),
  discontinued('purchaseMessageCredits', 'POST', '/v1/message-credits/purchase', 'Buy message credits (discontinued)'),
];
