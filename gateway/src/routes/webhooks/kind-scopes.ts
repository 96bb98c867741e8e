import type { Scope } from '@crm/shared';
import { readScopesOf } from '@crm/shared/events';
import type { Principal } from '../../http/route';
import { requireScopes } from '../../plugins/auth';

/**
 * A subscription delivers its kinds' data, and a delivery's detail and redelivery carry it: besides the route's own
 * scope, the key must hold the read scope that guards each kind (the event catalogue's table, docs/security.md),
 * or it could read through webhooks what the read routes refuse it. INSUFFICIENT_SCOPES names the missing ones.
 */
export function requireKindScopes(principal: Principal, routeScope: Scope, kinds: readonly string[]): void {
  requireScopes(principal, [routeScope, ...readScopesOf(kinds)]);
}
