import { AppError } from '@crm/shared';
import { checkTargetUrlResolved } from '../delivery/address-guard';
import type { DeliverySettings } from './deps';

/**
 * Refuses a subscription URL that is not https or points at a loopback, private, link-local or metadata address
 * (unless allow-listed). A host that does not resolve yet is accepted: the same rules run again before each delivery.
 */
export async function checkSubscriptionUrl(settings: DeliverySettings, url: string): Promise<void> {
  const result = await checkTargetUrlResolved(url, settings.allowList);
  if (result.ok || result.code === 'unresolvable') return;
  throw new AppError('VALIDATION_ERROR', `Invalid request: url: ${result.reason}.`, { fields: [{ field: 'url', issue: result.reason }] });
}
