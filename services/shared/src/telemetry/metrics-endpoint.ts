import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface MetricsEndpoint {
  port: number;
  close(): Promise<void>;
}

/**
 * The Prometheus scrape endpoint: `GET /metrics` on its own listener, away from the API's port, so a scraper
 * needs no API key and the API's own request metrics and rate limits never count scrapes.
 */
export async function serveMetrics(
  options: { host: string; port: number },
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<MetricsEndpoint> {
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.split('?')[0] === '/metrics') return handle(request, response);
    response.statusCode = 404;
    response.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
