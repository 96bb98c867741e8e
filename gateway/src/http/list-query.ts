/** The paging part of a list query: the pipeline decodes it into the handler's `page` (pipeline.ts `pageOf`). */
interface PagedQuery {
  limit?: number;
  cursor?: string;
}

/** A list query without its paging: what the service filters by. */
export function filterOf<Q extends PagedQuery>(query: Q): Omit<Q, keyof PagedQuery> {
  const { limit: _limit, cursor: _cursor, ...filter } = query;
  return filter;
}

/** A sortable list's query as its service takes it: the sort and the order, and the rest as the filter. */
export function sortedFilterOf<Q extends PagedQuery & { sort: unknown; order: unknown }>(query: Q) {
  const { sort, order, ...filter } = filterOf(query);
  return { sort, order, filter };
}
