import createClient, { type Client, type FetchResponse, type Middleware } from 'openapi-fetch';
import { CrmApiError } from './errors';
import type { paths } from './generated/api';

export interface CrmClientOptions {
  /** Where the gateway answers, without `/v1`: `https://crm.example.com`. */
  baseUrl: string;
  /** An API key, `sk_live_…`: sent as `Authorization: Bearer <key>` on every call. */
  apiKey: string;
  /** A fetch implementation (tests, proxies, retries); the global `fetch` by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent on every call. */
  headers?: Record<string, string>;
}

/** The typed openapi-fetch client of every documented operation: `crm.GET('/v1/contacts/{id}', …)`. */
export type CrmClient = Client<paths>;

/** A typed client bound to one API key. Calls answer openapi-fetch's `{data, error, response}`; see `unwrap`. */
export function createCrmClient(options: CrmClientOptions): CrmClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  client.use(bearer(options.apiKey));
  return client;
}

/** Sets the bearer header in a middleware, so no call can forget it and `headers` cannot override it by accident. */
function bearer(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${apiKey}`);
      return request;
    },
  };
}

/**
 * `{params: {header: {'Idempotency-Key': key}}}` for the four creates that honour the header (contacts, deals,
 * messages/send, broadcasts): a retry with the same key and body gets the stored answer instead of a second record.
 * Typed by the document, so passing it to an operation without the header does not compile.
 */
export function idempotencyKey(key: string = globalThis.crypto.randomUUID()): { header: { 'Idempotency-Key': string } } {
  return { header: { 'Idempotency-Key': key } };
}

type AnyFetchResponse = FetchResponse<Record<string | number, unknown>, unknown, `${string}/${string}`>;

/** The success body of a call (`{data, meta}`), or a thrown `CrmApiError`. */
export async function unwrap<R extends AnyFetchResponse>(call: Promise<R> | R): Promise<NonNullable<R['data']>> {
  const result = await call;
  if (result.error !== undefined || !result.response.ok) {
    throw new CrmApiError(result.response.status, result.error, result.response.headers.get('x-request-id'));
  }
  return result.data as NonNullable<R['data']>;
}
