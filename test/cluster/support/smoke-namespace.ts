import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { request } from 'node:http';
import { clusterEnv, eventually, kubectl } from './cluster';

/** The namespace of the smoke tests' own pods (the release's values allow webhooks to its receiver). */
export const SMOKE_NAMESPACE = 'crm-smoke';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

const hardened = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};

/** A pod spec on the Node base image, non-root and read-only like the product's. */
async function nodePod(name: string, command: string[], extra: Record<string, unknown> = {}) {
  const { CLUSTER_NODE_IMAGE } = await clusterEnv();
  return {
    securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
    automountServiceAccountToken: false,
    containers: [
      {
        name,
        image: CLUSTER_NODE_IMAGE,
        imagePullPolicy: 'Never',
        command,
        securityContext: hardened,
        resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '128Mi' } },
        ...extra,
      },
    ],
  };
}

/** The receiver (Deployment and Service `receiver`) and an idle pod `probe`, both in SMOKE_NAMESPACE; waits until ready. */
export async function deploySmokePods(): Promise<void> {
  const script = readFileSync(resolve(__dirname, 'receiver-server.mjs'), 'utf8');
  const labels = { app: 'receiver' };
  const objects = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SMOKE_NAMESPACE } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'receiver', namespace: SMOKE_NAMESPACE }, data: { 'receiver.mjs': script } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'receiver', namespace: SMOKE_NAMESPACE },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            ...(await nodePod('receiver', ['node', '/receiver/receiver.mjs'], {
              ports: [{ name: 'http', containerPort: 8080 }],
              readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 2 },
              volumeMounts: [{ name: 'script', mountPath: '/receiver', readOnly: true }],
            })),
            volumes: [{ name: 'script', configMap: { name: 'receiver' } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'receiver', namespace: SMOKE_NAMESPACE },
      spec: { selector: labels, ports: [{ name: 'http', port: 8080, targetPort: 'http' }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'probe', namespace: SMOKE_NAMESPACE, labels: { app: 'probe' } },
      spec: { ...(await nodePod('probe', ['node', '-e', 'setInterval(() => {}, 1 << 30)'])), terminationGracePeriodSeconds: 1 },
    },
  ];
  await kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }) });
  await kubectl(['-n', SMOKE_NAMESPACE, 'rollout', 'status', 'deployment/receiver', '--timeout=120s']);
  await kubectl(['-n', SMOKE_NAMESPACE, 'wait', '--for=condition=Ready', 'pod/probe', '--timeout=120s']);
}

/** The receiver's URL as the webhook service reaches it (an allow-listed private host, see values-local.yaml). */
export const RECEIVER_URL = `http://receiver.${SMOKE_NAMESPACE}.svc.cluster.local:8080/hook`;

/** Every request the receiver has recorded, read through its Service from the host. */
export async function received(): Promise<Received[]> {
  const ip = (await kubectl(['-n', SMOKE_NAMESPACE, 'get', 'service', 'receiver', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  return new Promise((done, fail) => {
    request({ host: ip, port: 8080, path: '/received', agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received[]));
    })
      .on('timeout', function (this: { destroy: (e: Error) => void }) {
        this.destroy(new Error('receiver did not answer'));
      })
      .on('error', fail)
      .end();
  });
}

/** Waits until the receiver holds an event of `type` for each of `ids` (data.object.id); returns those deliveries. */
export async function waitForEvents(type: string, ids: string[], timeoutMs = 120_000): Promise<Received[]> {
  return eventually(`${ids.length} ${type} webhooks`, timeoutMs, async () => {
    const byId = new Map<string, Received>();
    for (const delivery of await received()) {
      const event = JSON.parse(delivery.body) as { type: string; data?: { object?: { id?: string } } };
      const id = event.data?.object?.id;
      if (event.type === type && id) byId.set(id, delivery);
    }
    const missing = ids.filter((id) => !byId.has(id));
    return missing.length === 0 ? ids.map((id) => byId.get(id) as Received) : undefined;
  });
}
