import {
  credentials,
  makeGenericClientConstructor,
  Metadata,
  status,
  type ServiceError,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { SignJWT } from 'jose';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkGrpc } from '../bin/healthcheck';
import { createAsyncClient } from './client';
import { startGrpcServer, type RunningGrpcServer } from './server';
import { SERVICE_TOKEN_METADATA, tokenChecker } from './service-identity';
import { bindService } from './unary';

interface Ping {
  org_id: string;
}
const json = {
  requestSerialize: (value: Ping) => Buffer.from(JSON.stringify(value)),
  requestDeserialize: (buffer: Buffer) => JSON.parse(buffer.toString()) as Ping,
  responseSerialize: (value: Ping) => Buffer.from(JSON.stringify(value)),
  responseDeserialize: (buffer: Buffer) => JSON.parse(buffer.toString()) as Ping,
};
const SERVICE = 'test.Tenant';
const definition = { ping: { path: `/${SERVICE}/Ping`, requestStream: false as const, responseStream: false as const, ...json } };

const SECRET = 's'.repeat(40);
const OLD_SECRET = 'o'.repeat(40);
const key = (secret: string) => new TextEncoder().encode(secret);
const nowS = () => Math.floor(Date.now() / 1000);

/** The org_id of every request a handler was given: an unauthenticated call must leave none. */
const served: string[] = [];
let server: RunningGrpcServer;
let address: string;

beforeAll(async () => {
  const implementation = bindService<UntypedServiceImplementation>(
    { ping: async (request: Ping) => (served.push(request.org_id), request) } as never,
    pino({ level: 'silent' }),
  );
  server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    services: [{ definition, implementation }],
    identity: { secret: SECRET, oldSecrets: [OLD_SECRET] },
  });
  address = `127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(0));

/** A plain @grpc/grpc-js client: sends exactly the metadata it is given. */
async function rawCall(metadata = new Metadata()): Promise<{ code: number; details: string }> {
  const Client = makeGenericClientConstructor(definition, SERVICE);
  const client = new Client(address, credentials.createInsecure()) as unknown as {
    ping(request: Ping, metadata: Metadata, callback: (error: ServiceError | null) => void): void;
    close(): void;
  };
  try {
    return await new Promise((resolve) =>
      client.ping({ org_id: 'org_victim' }, metadata, (error) =>
        resolve({ code: error?.code ?? status.OK, details: error?.details ?? '' }),
      ),
    );
  } finally {
    client.close();
  }
}

async function withToken(build: (jwt: SignJWT) => SignJWT, secret = SECRET) {
  const token = await build(new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer('intruder')).sign(key(secret));
  const metadata = new Metadata();
  metadata.set(SERVICE_TOKEN_METADATA, `Bearer ${token}`);
  return rawCall(metadata);
}

const valid = (jwt: SignJWT) =>
  jwt
    .setAudience(SERVICE)
    .setIssuedAt(nowS())
    .setExpirationTime(nowS() + 60);

describe('service identity: every gRPC call must carry a service token', () => {
  it('serves a call from the shared client, which signs its token with the key', async () => {
    const client = createAsyncClient(definition, address, SERVICE, { identity: { name: 'gateway', secret: SECRET } });
    await expect(client.ping({ org_id: 'org_a' })).resolves.toEqual({ org_id: 'org_a' });
    client.close();
    expect(served).toContain('org_a');
  });

  it('refuses a call without a token UNAUTHENTICATED, before any handler sees its org_id', async () => {
    expect(await rawCall()).toEqual({ code: status.UNAUTHENTICATED, details: 'missing service token' });
    const noBearer = new Metadata();
    noBearer.set(SERVICE_TOKEN_METADATA, SECRET);
    expect((await rawCall(noBearer)).code).toBe(status.UNAUTHENTICATED);
  });

  it('refuses a forged, expired, foreign or unsigned token', async () => {
    expect(await withToken(valid, 'f'.repeat(40))).toEqual({ code: status.UNAUTHENTICATED, details: 'invalid service token' });
    const expired = (jwt: SignJWT) =>
      jwt
        .setAudience(SERVICE)
        .setIssuedAt(nowS() - 120)
        .setExpirationTime(nowS() - 60);
    expect(await withToken(expired)).toEqual({ code: status.UNAUTHENTICATED, details: 'expired service token' });
    // Issued long ago with a far expiry: no token is honoured for longer than a minute after it was made.
    const longLived = (jwt: SignJWT) =>
      jwt
        .setAudience(SERVICE)
        .setIssuedAt(nowS() - 600)
        .setExpirationTime(nowS() + 3600);
    expect((await withToken(longLived)).code).toBe(status.UNAUTHENTICATED);
    const otherService = (jwt: SignJWT) =>
      jwt
        .setAudience('crm.v1.ContactService')
        .setIssuedAt(nowS())
        .setExpirationTime(nowS() + 60);
    expect((await withToken(otherService)).code).toBe(status.UNAUTHENTICATED);
    const noExpiry = (jwt: SignJWT) => jwt.setAudience(SERVICE).setIssuedAt(nowS());
    expect((await withToken(noExpiry)).code).toBe(status.UNAUTHENTICATED);
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(`{"aud":"${SERVICE}"}`).toString('base64url')}.`;
    const metadata = new Metadata();
    metadata.set(SERVICE_TOKEN_METADATA, `Bearer ${unsigned}`);
    expect((await rawCall(metadata)).code).toBe(status.UNAUTHENTICATED);
    expect(served).not.toContain('org_victim');
  });

  it('remembers a valid token only while it stays valid, and for its own audience only', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const check = tokenChecker({ secret: SECRET });
      const token = await valid(new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer('gateway')).sign(key(SECRET));
      const metadata = new Metadata();
      metadata.set(SERVICE_TOKEN_METADATA, `Bearer ${token}`);
      expect(await check(metadata, SERVICE)).toBeUndefined();
      expect(await check(metadata, SERVICE)).toBeUndefined();
      expect(await check(metadata, 'crm.v1.ContactService')).toBe('invalid service token');
      // Past its expiry and the clock tolerance (60 + 5 s), a remembered token is refused as any expired one.
      vi.setSystemTime(Date.now() + 66_000);
      expect(await check(metadata, SERVICE)).toBe('expired service token');
    } finally {
      vi.useRealTimers();
    }
  });

  it('accepts a token of the previous key during a rotation', async () => {
    expect((await withToken(valid, OLD_SECRET)).code).toBe(status.OK);
  });

  it('leaves the health service open (probes hold no key)', async () => {
    expect(await checkGrpc(address, 2_000)).toBe(true);
  });
});
