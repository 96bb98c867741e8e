import { request } from 'node:http';
import { clusterEnv, kubectl } from './cluster';

export interface Answer {
  status: number;
  body: any;
}

/**
 * One API call through the gateway's Service, on a connection of its own: kube-proxy picks a ready endpoint for each
 * request, as for any new connection. (A kept-alive connection can race a draining server's close of it; an HTTP
 * client may retry only idempotent requests then, so that would measure the client, not the deployment.)
 */
export async function call(
  method: string,
  path: string,
  options: { key?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<Answer> {
  const { CRM_GATEWAY_URL } = await clusterEnv();
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((done, fail) => {
    const req = request(
      new URL(path, CRM_GATEWAY_URL),
      {
        method,
        agent: false,
        timeout: options.timeoutMs ?? 30_000,
        headers: {
          ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON: kept as text
          }
          done({ status: res.statusCode ?? 0, body });
        });
        res.on('error', fail);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${options.timeoutMs ?? 30_000} ms`)));
    req.on('error', fail);
    req.end(payload);
  });
}

/** The admin CLI inside a crm pod, as the chart's NOTES tell an operator to run it; returns its JSON output. */
export async function admin(args: string[]): Promise<any> {
  const { CLUSTER_NAMESPACE, CLUSTER_RELEASE } = await clusterEnv();
  const out = await kubectl([
    '-n',
    CLUSTER_NAMESPACE,
    'exec',
    `deploy/${CLUSTER_RELEASE}-crm`,
    '--',
    'node',
    'dist/services/crm/src/cli/admin.js',
    ...args,
    '--json',
  ]);
  // The result is the last line (the CLI's logger may have written before it).
  return JSON.parse(out.trim().split('\n').at(-1) ?? '');
}

/** A fresh organization and a key with every scope. */
export async function freshOrganization(name: string): Promise<{ orgId: string; key: string }> {
  const org = await admin(['create-org', '--name', name]);
  const created = await admin(['create-key', '--org', org.id, '--name', 'cluster-smoke', '--all-scopes']);
  return { orgId: org.id, key: created.key };
}
