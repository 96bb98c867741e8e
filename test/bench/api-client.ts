/** A minimal client of the public API for setting up a benchmark (not for measuring: that is autocannon's job). */
export interface ApiClient {
  headers: Record<string, string>;
  call<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T>;
}

export function apiClient(baseUrl: string, key: string): ApiClient {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  return {
    headers,
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: body === undefined ? { authorization: headers.authorization } : headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return (response.status === 204 ? null : await response.json()) as T;
    },
  };
}
