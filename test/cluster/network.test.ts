import { execFile } from 'node:child_process';
import { connect, createServer, type Server } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterEnv, eventually, kubectl, releasePods } from './support/cluster';
import { deploySmokePods, SMOKE_NAMESPACE } from './support/smoke-namespace';

const run = promisify(execFile);

/** A TCP connection attempt from inside a pod, by `kubectl exec ... node`: 'connected', or the error's code. */
async function connectFrom(namespace: string, target: string, host: string, port: number): Promise<string> {
  const script = `const s = require('net').connect(${port}, '${host}');
s.setTimeout(3000, () => { console.log('TIMEOUT'); process.exit(0); });
s.on('connect', () => { console.log('connected'); process.exit(0); });
s.on('error', (e) => { console.log(e.code); process.exit(0); });`;
  return (await kubectl(['-n', namespace, 'exec', target, '--', 'node', '-e', script])).trim();
}

/** Connects, sends `request` if any, and returns the first line answered. */
function readLine(host: string, port: number, request?: string): Promise<string> {
  return new Promise((done, fail) => {
    const socket = connect(port, host);
    let data = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error(`${host}:${port}: no answer`)));
    socket.on('connect', () => request && socket.write(request));
    socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
    socket.on('end', () => done(data.split('\n')[0]?.trim() ?? ''));
    socket.on('error', fail);
  });
}

async function podIp(component: string): Promise<string> {
  const pod = (await releasePods(component)).find((p) => p.running);
  if (!pod) throw new Error(`no running ${component} pod`);
  return pod.ip;
}

/**
 * The chart's NetworkPolicies enforced (kube-router's policy controller beside the bridge CNI): a pod outside the
 * allowed set cannot reach a service's gRPC port, its allowed callers can.
 */
describe('NetworkPolicies', () => {
  beforeAll(deploySmokePods);

  it('let the gateway reach crm over gRPC and keep a pod of another namespace out', async () => {
    const { CLUSTER_NAMESPACE, CLUSTER_RELEASE } = await clusterEnv();
    const crm = await podIp('crm');
    expect(await connectFrom(CLUSTER_NAMESPACE, `deploy/${CLUSTER_RELEASE}-gateway`, crm, 50051)).toBe('connected');
    // Refused by the policy (kube-router rejects; other plugins drop, which times out): not connected either way.
    expect(await connectFrom(SMOKE_NAMESPACE, 'probe', crm, 50051)).not.toBe('connected');
    // webhooks is called by the gateway only: crm's pods are not among its allowed callers.
    expect(await connectFrom(CLUSTER_NAMESPACE, `deploy/${CLUSTER_RELEASE}-crm`, await podIp('webhooks'), 50054)).not.toBe('connected');
    expect(await connectFrom(CLUSTER_NAMESPACE, `deploy/${CLUSTER_RELEASE}-gateway`, await podIp('webhooks'), 50054)).toBe('connected');
    // The gateway's HTTP port is public (networkPolicy.publicFrom empty: any source).
    expect(await connectFrom(SMOKE_NAMESPACE, 'probe', await podIp('gateway'), 8080)).toBe('connected');
  });
});

/**
 * The cluster shares the machine with other work on loopback: its iptables rules (kube-proxy's, kube-router's, the
 * egress guard) match only the pod and service ranges and the bridge's address.
 */
describe('the host around the cluster', () => {
  const nodePort = 30_080;
  let server: Server;

  beforeAll(async () => {
    await deploySmokePods();
    // A NodePort Service on the receiver and, on the same port on loopback, a server of this host's own.
    await kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'receiver-nodeport', namespace: SMOKE_NAMESPACE },
        spec: { type: 'NodePort', selector: { app: 'receiver' }, ports: [{ port: 8080, targetPort: 8080, nodePort }] },
      }),
    });
    server = createServer((socket) => socket.end('host\n'));
    await new Promise<void>((done) => server.listen(nodePort, '127.0.0.1', done));
    // Once kube-proxy has the Service's endpoints, its node port answers on the bridge's address. (Until then it
    // rejects the port on every local address, loopback included: kube-proxy's rule for a node port without
    // endpoints. deploy/cluster/README.md says why the cluster keeps its node ports apart.)
    await eventually('the node port on the bridge address', 60_000, async () =>
      (await readLine((await clusterEnv()).CLUSTER_NODE_IP, nodePort, 'GET /healthz HTTP/1.0\r\n\r\n')).startsWith('HTTP/1.1 200')
        ? true
        : undefined,
    );
  });
  afterAll(async () => {
    server?.close();
    await kubectl(['-n', SMOKE_NAMESPACE, 'delete', 'service', 'receiver-nodeport', '--ignore-not-found']);
  });

  it('leaves loopback alone: a node port on 127.0.0.1 reaches this host, not the Service', async () => {
    expect(await readLine('127.0.0.1', nodePort)).toBe('host');
    const { stdout } = await run('sysctl', ['-n', 'net.ipv4.conf.all.route_localnet']);
    expect(stdout.trim()).toBe('0');
  });

  it('adds no rule that matches loopback, and changes no iptables policy', async () => {
    const rules = (await Promise.all(['filter', 'nat', 'mangle', 'raw'].map((t) => run('iptables-save', ['-t', t])))).map((r) => r.stdout);
    const ours = rules
      .join('\n')
      .split('\n')
      .filter((line) => /^-A .*(KUBE-|CRM-CLUSTER-)/.test(line));
    expect(ours.length).toBeGreaterThan(10);
    // Nothing names a loopback address, and the only rule about the lo interface lets its traffic pass untouched.
    expect(ours.filter((line) => /127\.\d+\.\d+\.\d+/.test(line) || (/-[io] lo\b/.test(line) && !/-j RETURN$/.test(line)))).toEqual([]);
    const policies = rules
      .join('\n')
      .split('\n')
      .filter((line) => /^:(INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING) /.test(line));
    expect(policies.every((line) => / ACCEPT /.test(line))).toBe(true);
  });
});
