import { Server, ServerCredentials } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servingStatus } from '../../services/shared/src/bin/healthcheck';

const run = promisify(execFile);
const SCRIPT = resolve(__dirname, '../../services/shared/src/bin/healthcheck.ts');

/** The images' HEALTHCHECK script as a process, as Docker runs it (here through tsx on the source). */
async function healthcheck(service: string, env: Record<string, string>): Promise<number> {
  try {
    await run(process.execPath, ['--import', 'tsx', SCRIPT, service], { env: { ...process.env, ...env }, timeout: 20_000 });
    return 0;
  } catch (error) {
    return (error as { code?: number }).code ?? -1;
  }
}

describe('the image HEALTHCHECK', () => {
  const server = new Server();
  const health = new HealthImplementation({ '': 'SERVING' });
  let grpcPort = 0;
  const http = createServer((req, res) => res.writeHead(req.url === '/healthz' ? 200 : 404).end());
  beforeAll(async () => {
    health.addToServer(server);
    grpcPort = await new Promise<number>((done, fail) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => (error ? fail(error) : done(port))),
    );
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  });
  afterAll(() => {
    server.forceShutdown();
    http.close();
  });

  it('reads the status field of a HealthCheckResponse', () => {
    expect(servingStatus(Buffer.from([0x08, 0x01]))).toBe(1);
    expect(servingStatus(Buffer.from([0x08, 0x02]))).toBe(2);
    expect(servingStatus(Buffer.alloc(0))).toBe(0);
  });

  it('passes while a gRPC service reports SERVING and fails once it drains (NOT_SERVING)', async () => {
    expect(await healthcheck('crm', { CRM_GRPC_PORT: String(grpcPort) })).toBe(0);
    health.setStatus('', 'NOT_SERVING');
    expect(await healthcheck('crm', { CRM_GRPC_PORT: String(grpcPort) })).toBe(1);
    health.setStatus('', 'SERVING');
  });

  it('checks the gateway over GET /healthz and fails on a closed port or an unknown service', async () => {
    expect(await healthcheck('gateway', { PORT: String((http.address() as AddressInfo).port) })).toBe(0);
    expect(await healthcheck('webhooks', { WEBHOOKS_GRPC_PORT: '1' })).toBe(1);
    expect(await healthcheck('nope', {})).toBe(2);
  });
});
