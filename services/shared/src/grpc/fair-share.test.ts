import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FairScheduler } from '../concurrency/fair-scheduler';
import { createAsyncClient } from './client';
import { startGrpcServer, type RunningGrpcServer } from './server';
import { bindService } from './unary';

// The per-organization share of a service's places (CRM_CALL_CONCURRENCY_PER_ORG), over a real gRPC server and the
// services' own client: calls of one organization that the handler holds fill only its share, and another
// organization's call is started while they wait.

interface List {
  org_id: string;
  label: string;
}
const json = {
  requestSerialize: (value: List) => Buffer.from(JSON.stringify(value)),
  requestDeserialize: (buffer: Buffer) => JSON.parse(buffer.toString()) as List,
  responseSerialize: (value: List) => Buffer.from(JSON.stringify(value)),
  responseDeserialize: (buffer: Buffer) => JSON.parse(buffer.toString()) as List,
};
const SERVICE = 'test.Lists';
const definition = { list: { path: `/${SERVICE}/List`, requestStream: false as const, responseStream: false as const, ...json } };
const SECRET = 's'.repeat(40);

const PLACES = 4;
const PER_ORG = 2;
// A window longer than the test: the light organization counts as active throughout.
const scheduler = new FairScheduler(PLACES, PER_ORG, 60_000);
/** Calls the handler has started and not yet answered, by label; answering one frees its place. */
const running = new Map<string, () => void>();
const started: string[] = [];
let server: RunningGrpcServer;
let client: ReturnType<typeof createAsyncClient<typeof definition>>;

beforeAll(async () => {
  const implementation = bindService<UntypedServiceImplementation>(
    {
      list: (request: List) =>
        new Promise<List>((resolve) => {
          started.push(request.label);
          running.set(request.label, () => resolve(request));
        }),
    } as never,
    pino({ level: 'silent' }),
    scheduler,
  );
  server = await startGrpcServer({ host: '127.0.0.1', port: 0, services: [{ definition, implementation }], identity: { secret: SECRET } });
  client = createAsyncClient(definition, `127.0.0.1:${server.port}`, SERVICE, { identity: { name: 'gateway', secret: SECRET } });
});
afterAll(async () => {
  client.close();
  await server.stop(0);
});

/** Polls until `check` holds (the calls cross a real socket), at most 5 s. */
async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 5_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const answer = (label: string) => {
  running.get(label)?.();
  running.delete(label);
};

describe('a service whose places are shared per organization', () => {
  it('starts at most the share of one organization’s many waiting calls, and another organization’s call at once', async () => {
    // Both organizations are active: the light one has just been served.
    const first = client.list({ org_id: 'org_light', label: 'l0' });
    await until(() => started.includes('l0'));
    answer('l0');
    await first;
    started.length = 0;

    const heavy = Array.from({ length: 6 }, (_, i) => client.list({ org_id: 'org_heavy', label: `h${i + 1}` }));
    await until(() => started.length === PER_ORG);
    // The heavy calls that wait are queued (the gRPC server has them), yet free places stay free.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started).toEqual(['h1', 'h2']);
    expect(scheduler.heldBy('org_heavy')).toBe(PER_ORG);
    expect(scheduler.inService).toBe(PER_ORG);

    const light = client.list({ org_id: 'org_light', label: 'l1' });
    await until(() => started.includes('l1'));
    expect(scheduler.heldBy('org_heavy')).toBe(PER_ORG);
    answer('l1');
    expect(await light).toEqual({ org_id: 'org_light', label: 'l1' });

    // Each heavy answer lets the next heavy call in; never more than the share at once.
    for (let next = 3; next <= 6; next++) {
      answer(`h${next - 2}`);
      await until(() => started.includes(`h${next}`));
      expect(scheduler.heldBy('org_heavy')).toBe(PER_ORG);
    }
    answer('h5');
    answer('h6');
    expect((await Promise.all(heavy)).map((reply) => reply.label)).toEqual(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
    expect(scheduler.inService).toBe(0);
  });
});
