/**
 * The images' HEALTHCHECK (deploy/docker/Dockerfile): `node healthcheck.js <service>` exits 0 when the process
 * of this container answers healthy, 1 otherwise. The gateway: GET /healthz on PORT. A gRPC service: the standard
 * grpc.health.v1 Check (service "") on its gRPC port, which reports SERVING once bound and NOT_SERVING while it
 * drains. Plain node on compiled code with no proto loading: the request is an empty message, the answer's
 * field 1 (status) is read from the wire. Kubernetes ignores HEALTHCHECK; the chart uses native probes instead.
 */
import { Client, credentials, type ServiceError } from '@grpc/grpc-js';
import { request } from 'node:http';

const TIMEOUT_MS = 3_000;

/** Ports as the processes read them (their config.ts), with the same defaults. */
const targets: Record<string, { kind: 'http' | 'grpc'; portEnv: string; port: number }> = {
  gateway: { kind: 'http', portEnv: 'PORT', port: 8080 },
  crm: { kind: 'grpc', portEnv: 'CRM_GRPC_PORT', port: 50051 },
  messaging: { kind: 'grpc', portEnv: 'MESSAGING_GRPC_PORT', port: 50052 },
  agents: { kind: 'grpc', portEnv: 'AGENTS_GRPC_PORT', port: 50053 },
  webhooks: { kind: 'grpc', portEnv: 'WEBHOOKS_GRPC_PORT', port: 50054 },
};

/** HealthCheckResponse.status: field 1, varint; SERVING is 1. An absent field is the default, UNKNOWN (0). */
export function servingStatus(message: Buffer): number {
  return message.length >= 2 && message[0] === 0x08 ? (message[1] ?? 0) : 0;
}

export function checkGrpc(address: string, timeoutMs = TIMEOUT_MS): Promise<boolean> {
  const client = new Client(address, credentials.createInsecure());
  return new Promise<boolean>((resolve) => {
    client.makeUnaryRequest(
      '/grpc.health.v1.Health/Check',
      () => Buffer.alloc(0),
      (message: Buffer) => message,
      {},
      { deadline: Date.now() + timeoutMs },
      (error: ServiceError | null, answer?: Buffer) => resolve(!error && answer !== undefined && servingStatus(answer) === 1),
    );
  }).finally(() => client.close());
}

export function checkHttp(port: number, path = '/healthz', timeoutMs = TIMEOUT_MS): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function main(): Promise<void> {
  const service = process.argv[2] ?? process.env.SERVICE ?? '';
  const target = targets[service];
  if (!target) {
    console.error(`usage: healthcheck ${Object.keys(targets).join('|')} (or set SERVICE); got '${service}'`);
    process.exit(2);
  }
  const port = Number(process.env[target.portEnv] || target.port);
  const healthy = target.kind === 'http' ? await checkHttp(port) : await checkGrpc(`127.0.0.1:${port}`);
  if (!healthy) console.error(`${service} is not healthy on port ${port}`);
  process.exit(healthy ? 0 : 1);
}

if (require.main === module) void main();
