import type { BenchConfig } from './config';
import { measureRoute, type RouteFigures, type RouteScenario } from './http-scenarios';

export interface RouteTargets {
  ceiling: string;
  peer: string;
  gateway: string;
  key: string;
  contactIds: string[];
  dealIds: string[];
}

/** Lookups rotate over this many seeded contacts: enough that no single record stays hot in a cache. */
const LOOKUP_SPREAD = 1_000;

/** The side-by-side set: the ceiling, the peer's list, and the project's four routes through the gateway. */
export function routeScenarios(targets: RouteTargets): RouteScenario[] {
  const auth = { authorization: `Bearer ${targets.key}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const lookups = targets.contactIds.slice(-LOOKUP_SPREAD);
  const pick = <T>(list: T[], i: number): T => list[i % list.length] as T;
  return [
    { side: 'ceiling', route: 'GET /ping', read: false, baseUrl: targets.ceiling, request: { method: 'GET', path: '/ping' } },
    {
      side: 'peer',
      route: 'GET /v1/contacts',
      read: true,
      baseUrl: targets.peer,
      request: { method: 'GET', path: '/v1/contacts', headers: auth },
    },
    {
      side: 'project',
      route: 'GET /v1/contacts',
      read: true,
      baseUrl: targets.gateway,
      request: { method: 'GET', path: '/v1/contacts', headers: auth },
    },
    {
      side: 'project',
      route: 'GET /v1/contacts/{id}',
      read: true,
      baseUrl: targets.gateway,
      request: {
        method: 'GET',
        path: `/v1/contacts/${pick(lookups, 0)}`,
        headers: auth,
        next: (i) => ({ path: `/v1/contacts/${pick(lookups, i)}` }),
      },
    },
    {
      side: 'project',
      route: 'POST /v1/contacts',
      read: false,
      baseUrl: targets.gateway,
      request: { method: 'POST', path: '/v1/contacts', headers: json, body: JSON.stringify({ name: 'Bench contact', tags: ['bench'] }) },
    },
    {
      side: 'project',
      route: 'PATCH /v1/deals/{id}',
      read: false,
      baseUrl: targets.gateway,
      // Spread over the seeded deals, each write a new value: a no-op patch or one hot record would measure less.
      request: {
        method: 'PATCH',
        path: `/v1/deals/${pick(targets.dealIds, 0)}`,
        headers: json,
        body: JSON.stringify({ value: 1_000 }),
        next: (i) => ({ path: `/v1/deals/${pick(targets.dealIds, i)}`, body: JSON.stringify({ value: 1_000 + i }) }),
      },
    },
  ];
}

export async function measureRouteSet(targets: RouteTargets, config: BenchConfig, log: (line: string) => void): Promise<RouteFigures[]> {
  const figures: RouteFigures[] = [];
  for (const scenario of routeScenarios(targets)) figures.push(await measureRoute(scenario, config, log));
  return figures;
}
