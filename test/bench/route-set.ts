import { randomUUID } from 'node:crypto';
import type { BenchConfig } from './config';
import { measureRoute, type RouteFigures, type RouteScenario } from './http-scenarios';
import { probeRequest, type RouteCost } from './route-cost';
import type { Watched } from './proc-stats';

export interface RouteTargets {
  ceiling: string;
  peer: string;
  gateway: string;
  key: string;
  contactIds: string[];
  dealIds: string[];
  /** CPU per request is read from these: the peer process and the database; the gateway, the replicas and the database. */
  peerProcesses?: Watched[];
  projectProcesses?: Watched[];
}

/** Lookups rotate over this many seeded contacts: enough that no single record stays hot in a cache. */
const LOOKUP_SPREAD = 1_000;

/** The side-by-side set: the ceiling, the peer's list, and the project's four routes through the gateway. */
export function routeScenarios(targets: RouteTargets): RouteScenario[] {
  const auth = { authorization: `Bearer ${targets.key}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const lookups = targets.contactIds.slice(-LOOKUP_SPREAD);
  const pick = <T>(list: T[], i: number): T => list[i % list.length] as T;
  const byId = (side: 'peer' | 'project', baseUrl: string): RouteScenario => ({
    side,
    route: 'GET /v1/contacts/{id}',
    read: true,
    baseUrl,
    request: {
      method: 'GET',
      path: `/v1/contacts/${pick(lookups, 0)}`,
      headers: auth,
      next: (i) => ({ path: `/v1/contacts/${pick(lookups, i)}` }),
    },
  });
  // Each create with an Idempotency-Key of its own: the key's record is written with the contact and its event.
  const create = (side: 'peer' | 'project', baseUrl: string): RouteScenario => ({
    side,
    route: 'POST /v1/contacts',
    read: false,
    baseUrl,
    request: {
      method: 'POST',
      path: '/v1/contacts',
      headers: { ...json, 'idempotency-key': `bench-${side}-0-${Date.now()}` },
      body: JSON.stringify({ name: 'Bench contact', tags: ['bench'] }),
      next: () => ({ headers: { ...json, 'idempotency-key': randomUUID() } }),
    },
  });
  const list = (side: 'peer' | 'project', baseUrl: string): RouteScenario => ({
    side,
    route: 'GET /v1/contacts',
    read: true,
    baseUrl,
    request: { method: 'GET', path: '/v1/contacts', headers: auth },
  });
  // The reads first, then the creates (whose contacts would otherwise lead the pages read).
  const scenarios: RouteScenario[] = [
    { side: 'ceiling', route: 'GET /ping', read: false, baseUrl: targets.ceiling, request: { method: 'GET', path: '/ping' } },
    list('peer', targets.peer),
    byId('peer', targets.peer),
    list('project', targets.gateway),
    byId('project', targets.gateway),
    create('peer', targets.peer),
    create('project', targets.gateway),
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
  return scenarios.map((scenario): RouteScenario => {
    if (scenario.side === 'project') return { ...scenario, processes: targets.projectProcesses };
    return scenario.side === 'peer' ? { ...scenario, processes: targets.peerProcesses } : scenario;
  });
}

export async function measureRouteSet(targets: RouteTargets, config: BenchConfig, log: (line: string) => void): Promise<RouteFigures[]> {
  const figures: RouteFigures[] = [];
  for (const scenario of routeScenarios(targets)) figures.push(await measureRoute(scenario, config, log));
  return figures;
}

export type ProbedCost = Pick<RouteCost, 'db_commands' | 'commands' | 'grpc_bytes'>;

/** The database commands and gRPC bytes of one request of each project route, from a gateway with diagnostics on. */
export async function probeRouteSet(targets: RouteTargets): Promise<Map<string, ProbedCost>> {
  const probed = new Map<string, ProbedCost>();
  for (const scenario of routeScenarios(targets))
    if (scenario.side === 'project') probed.set(scenario.route, await probeRequest(scenario.baseUrl, scenario.request));
  return probed;
}
