import type { Scope } from '@crm/shared/core';
import { EVENT_KINDS, readScopesOf, type EventType } from '@crm/shared/events';
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

/**
 * The kinds whose data the key may read (GET /v1/events without `type`): those whose guarding read scope it holds;
 * undefined when that is every kind (no filter needed).
 */
export function readableKinds(principal: Principal): EventType[] | undefined {
  const readable = EVENT_KINDS.filter((kind) => principal.scopes.includes(kind.scope)).map((kind) => kind.type);
  return readable.length === EVENT_KINDS.length ? undefined : readable;
}
