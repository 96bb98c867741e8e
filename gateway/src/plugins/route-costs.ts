/**
 * What a request costs against the rate limits, in units of an ordinary call (a page of a list, a read, a write):
 * the routes that scan a whole organization on each call are charged what they cost the database, so a key's
 * budget buys about the same work whichever routes it calls. The one table; docs/capacity.md lists it.
 */
interface RouteCost {
  cost: number;
  /** Charged only when the request asks for it (a query parameter); the route's other calls cost 1. */
  when?: (query: Record<string, unknown>) => boolean;
}

export const ROUTE_COSTS: Readonly<Record<string, RouteCost>> = {
  // Counts every contact the audience filter matches (0.5 s at 4.9k contacts, against 40 ms for a page).
  estimateBroadcastAudience: { cost: 10 },
  // A case-insensitive match on name, e-mail or phone scans the organization's contacts (0.9 s at 4.9k).
  listContacts: { cost: 5, when: (query) => query.search !== undefined && query.search !== '' },
  // Aggregates the tags of every record of the organization for each page.
  listTags: { cost: 5 },
};

/**
 * The batch routes: charged one unit per item of their (validated) body, as that many single writes would be; the
 * first unit on arrival (routeCost), the others by `itemCost` once the body is read. docs/capacity.md lists them.
 */
export const PER_ITEM_ROUTES: ReadonlySet<string> = new Set(['batchUpsertContacts', 'batchUpsertCompanies']);

export function routeCost(operationId: string, query: Record<string, unknown>): number {
  const entry = ROUTE_COSTS[operationId];
  if (!entry || (entry.when && !entry.when(query))) return 1;
  return entry.cost;
}

/** What a request's body costs in all: its items for a batch route, else 1 (already charged on arrival). */
export function itemCost(operationId: string, body: unknown): number {
  if (!PER_ITEM_ROUTES.has(operationId)) return 1;
  const items = (body as { items?: unknown[] } | undefined)?.items;
  return Math.max(1, items?.length ?? 0);
}
