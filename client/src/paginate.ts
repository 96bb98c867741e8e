import type { CrmClient } from './client';
import { CrmApiError } from './errors';
import type { components, paths } from './generated/api';

type ListMeta = components['schemas']['ListMeta'];
type GetOperation<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never;
type PageOf<P extends keyof paths> =
  GetOperation<P> extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;

/** The paths whose GET answers a page: `{data: [...], meta: {total, has_more, next_cursor?}}`. */
export type ListPath = {
  [P in keyof paths]: PageOf<P> extends { data: unknown[]; meta: ListMeta } ? P : never;
}[keyof paths];
/** One page of a list path. */
export type ListPage<P extends ListPath> = PageOf<P>;
/** One record of a list path. */
export type ListItem<P extends ListPath> = PageOf<P> extends { data: Array<infer I> } ? I : never;

type Parameters_<P extends ListPath> = GetOperation<P> extends { parameters: infer X } ? X : never;
type QueryOf<P extends ListPath> = Parameters_<P> extends { query?: infer Q } ? NonNullable<Q> : never;
/** The parameters of a list call without its cursor, which the iterator owns (`limit` sets the page size). */
export type ListParams<P extends ListPath> = Omit<Parameters_<P>, 'query' | 'header' | 'cookie'> & {
  query?: Omit<QueryOf<P>, 'cursor'>;
};

/**
 * Every page of a list, following `meta.next_cursor` until `has_more` is false; a refused call throws
 * `CrmApiError`. Typed by the path: `for await (const page of pages(crm, '/v1/deals', {query: {status: 'open'}}))`.
 */
export async function* pages<P extends ListPath>(client: CrmClient, path: P, params?: ListParams<P>): AsyncGenerator<ListPage<P>> {
  let cursor: string | undefined;
  do {
    const query = { ...(params as { query?: object } | undefined)?.query, ...(cursor ? { cursor } : {}) };
    // The generic path cannot be narrowed to one operation's init type; the signature above carries the types.
    const get = client.GET as unknown as (path: string, init: object) => ReturnType<CrmClient['GET']>;
    const { data, error, response } = await get(path, { params: { ...params, query } });
    if (error !== undefined || !response.ok) throw new CrmApiError(response.status, error, response.headers.get('x-request-id'));
    const page = data as { meta: ListMeta };
    yield page as ListPage<P>;
    cursor = page.meta.has_more ? page.meta.next_cursor : undefined;
  } while (cursor);
}

/** Every record of a list, page after page (see `pages`). */
export async function* items<P extends ListPath>(client: CrmClient, path: P, params?: ListParams<P>): AsyncGenerator<ListItem<P>> {
  for await (const page of pages(client, path, params)) yield* (page as { data: Array<ListItem<P>> }).data;
}

/** Every record of a list in one array: for small lists and tests; stream large ones with `items`. */
export async function listAll<P extends ListPath>(client: CrmClient, path: P, params?: ListParams<P>): Promise<Array<ListItem<P>>> {
  const all: Array<ListItem<P>> = [];
  for await (const item of items(client, path, params)) all.push(item);
  return all;
}
