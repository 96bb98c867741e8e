import { testSystem } from './system';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  /** The raw body text (204 answers have none). */
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/**
 * An untyped HTTP client for the running gateway, bound to one API key (or none): for the requests the typed
 * client (`client` in ./client, from @crm/client) refuses to build on purpose — malformed JSON, unknown fields,
 * wrong types, missing or malformed keys, raw headers, undocumented paths. Documented calls go through the typed one.
 */
export function rawApi(key?: string) {
  const { baseUrl } = testSystem();
  async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (key !== undefined) headers.authorization = `Bearer ${key}`;
    let payload: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
    const text = await response.text();
    let body: T = undefined as T;
    if (text) {
      try {
        body = JSON.parse(text) as T;
      } catch {
        body = text as T;
      }
    }
    return { status: response.status, headers: response.headers, body, text };
  }
  return {
    request,
    get: <T = any>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
    post: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, { ...options, body }),
    patch: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PATCH', path, { ...options, body }),
    put: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PUT', path, { ...options, body }),
    delete: <T = any>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
  };
}

export type RawApi = ReturnType<typeof rawApi>;

/** Follows next_cursor to the end of a list and returns every item (untyped: the typed one is `listAll` of @crm/client). */
export async function rawListAll<T = any>(client: RawApi, path: string, pageSize = 100): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  const separator = path.includes('?') ? '&' : '?';
  for (let page = 0; page < 1000; page++) {
    const response = await client.get(`${path}${separator}limit=${pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${response.text}`);
    items.push(...(response.body.data as T[]));
    cursor = response.body.meta.next_cursor;
    if (!response.body.meta.has_more) return items;
  }
  throw new Error('listAll did not reach the end');
}
