import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One gateway replica behind the balancer, and what the balancer knows of it. */
export interface Backend {
  url: URL;
  /** Answered its last /readyz with 2xx; a backend that is not ready is skipped while another one is. */
  ready: boolean;
}

export interface LoadBalancer {
  url: string;
  backends: Backend[];
  /** Connections refused by one backend and retried on another: what a client never saw. */
  retried: number;
  close(): Promise<void>;
}

/** What a Kubernetes Service gives a Deployment: readiness-probed endpoints, tried in turn. */
export interface LoadBalancerOptions {
  backends: string[];
  /** How often each backend's readiness is probed (`GET /readyz`). */
  probeIntervalMs?: number;
  port?: number;
}

// A refused or unroutable connection never reached the backend, so any request, a POST included, is safe to retry.
const NEVER_REACHED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * A round-robin HTTP reverse proxy over the gateway replicas for the chaos suite. One connection per request (no
 * keep-alive towards the backends): a draining gateway then only ever refuses new connections, which are retried on
 * the next backend, and never drops a request sent on a pooled connection it was closing.
 */
export async function startLoadBalancer(options: LoadBalancerOptions): Promise<LoadBalancer> {
  const backends: Backend[] = options.backends.map((url) => ({ url: new URL(url), ready: true }));
  let next = 0;
  const balancer: LoadBalancer = { url: '', backends, retried: 0, close: async () => undefined };

  /** Ready backends first, starting at the round-robin position; the others last, for when none is ready. */
  const order = (): Backend[] => {
    const start = next++ % backends.length;
    const rotated = [...backends.slice(start), ...backends.slice(0, start)];
    return [...rotated.filter((backend) => backend.ready), ...rotated.filter((backend) => !backend.ready)];
  };

  const forward = (incoming: IncomingMessage, body: Buffer, outgoing: ServerResponse, candidates: Backend[]): void => {
    const [backend, ...rest] = candidates;
    if (!backend) {
      outgoing.writeHead(502, { 'content-type': 'text/plain' }).end('no gateway replica accepted the connection');
      return;
    }
    const upstream = httpRequest(
      {
        host: backend.url.hostname,
        port: backend.url.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
        agent: false,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (NEVER_REACHED.has(error.code ?? '') && rest.length > 0) {
        backend.ready = false;
        balancer.retried++;
        forward(incoming, body, outgoing, rest);
      } else if (!outgoing.headersSent) {
        outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(`gateway replica failed: ${error.code ?? error.message}`);
      } else {
        outgoing.destroy(error);
      }
    });
    upstream.end(body);
  };

  // The body is buffered so that it can be sent again to the next backend.
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => forward(incoming, Buffer.concat(chunks), outgoing, order()));
  });

  const probe = setInterval(() => {
    for (const backend of backends)
      void fetch(new URL('/readyz', backend.url), { signal: AbortSignal.timeout(1_000) }).then(
        (answer) => (backend.ready = answer.ok),
        () => (backend.ready = false),
      );
  }, options.probeIntervalMs ?? 250);

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  balancer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  balancer.close = async () => {
    clearInterval(probe);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return balancer;
}
