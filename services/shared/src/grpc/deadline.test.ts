import { Metadata, status as grpcStatus, type handleUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error';
import { createAsyncClient } from './client';
import { callDeadline, currentDeadline, DEADLINE_MARGIN_MS, outsideRequest, withDeadline } from './deadline';
import { startGrpcServer, type RunningGrpcServer } from './server';
import { bindService } from './unary';

const KEYS = { secret: 'k'.repeat(32) };
const CALLER = { name: 'test', secret: KEYS.secret };

describe('the request deadline', () => {
  it('bounds a call by the request, less a margin, and by the call default otherwise', async () => {
    const now = 1_000_000;
    expect(callDeadline(15_000, now).getTime()).toBe(now + 15_000);
    await withDeadline(now + 2_000, async () => {
      expect(callDeadline(15_000, now).getTime()).toBe(now + 2_000 - DEADLINE_MARGIN_MS);
      // A shorter call default still wins.
      expect(callDeadline(500, now).getTime()).toBe(now + 500);
    });
  });

  it('is lifted once the request settles, so work it left running keeps its own defaults', async () => {
    let later: () => number | undefined = () => 0;
    await withDeadline(Date.now() + 1_000, async () => {
      expect(currentDeadline()).toBeDefined();
      later = () => currentDeadline();
    });
    expect(later()).toBeUndefined();
  });

  it('does not bind a worker that a request only wakes', async () => {
    await withDeadline(Date.now() + 1_000, async () => {
      expect(outsideRequest(() => currentDeadline())).toBeUndefined();
      expect(await outsideRequest(async () => currentDeadline())).toBeUndefined();
    });
  });

  it('ignores an absent or infinite deadline (a call sent without one)', async () => {
    await withDeadline(Infinity, async () => expect(currentDeadline()).toBeUndefined());
    await withDeadline(undefined, async () => expect(currentDeadline()).toBeUndefined());
  });
});

// Two tiny services over real in-process grpc-js servers: `front` answers by calling `back`, which never answers.
interface Ping {
  n: number;
}
const json = {
  requestSerialize: (value: Ping) => Buffer.from(JSON.stringify(value)),
  requestDeserialize: (buffer: Buffer) => JSON.parse(buffer.toString()) as Ping,
  responseSerialize: (value: Ping) => Buffer.from(JSON.stringify(value)),
  responseDeserialize: (buffer: Buffer) => JSON.parse(buffer.toString()) as Ping,
};
const definition = { ping: { path: '/test.Ping/Ping', requestStream: false as const, responseStream: false as const, ...json } };
interface PingServer extends UntypedServiceImplementation {
  ping: handleUnaryCall<Ping, Ping>;
}

describe('a service calling another inherits its incoming call deadline', () => {
  let back: RunningGrpcServer;
  let front: RunningGrpcServer;
  let toBack: ReturnType<typeof createAsyncClient<typeof definition>>;
  beforeAll(async () => {
    // Accepts every call and never answers: only a deadline ends it.
    back = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [{ definition, implementation: { ping: () => undefined } }],
      identity: KEYS,
    });
    toBack = createAsyncClient(definition, `127.0.0.1:${back.port}`, 'back', { identity: CALLER });
    const implementation = bindService<PingServer>({ ping: async (request) => toBack.ping(request) }, pino({ level: 'silent' }));
    front = await startGrpcServer({ host: '127.0.0.1', port: 0, services: [{ definition, implementation }], identity: KEYS });
  });
  afterAll(async () => {
    toBack.close();
    await Promise.all([back.stop(0), front.stop(0)]);
  });

  it('answers UPSTREAM_TIMEOUT within the caller budget, not after the 15 s default', async () => {
    const client = createAsyncClient(definition, `127.0.0.1:${front.port}`, 'front', { identity: CALLER });
    const started = Date.now();
    const error = await client.ping({ n: 1 }, { timeoutMs: 800 }).catch((caught: unknown) => caught);
    const elapsed = Date.now() - started;
    client.close();
    expect(error).toBeInstanceOf(AppError);
    // `front` answered its own error (the inner call's timeout) before the outer deadline passed.
    expect((error as AppError).code).toBe('UPSTREAM_TIMEOUT');
    expect(elapsed).toBeLessThan(3_000);
  });
});

describe('a service receiving a call whose deadline has passed', () => {
  it('refuses it with DEADLINE_EXCEEDED without starting the handler', async () => {
    let started = 0;
    const bound = bindService<PingServer>(
      {
        ping: async (request) => {
          started += 1;
          return request;
        },
      },
      pino({ level: 'silent' }),
    );
    const answer = (deadline: Date) =>
      new Promise<{ code?: number } | null>((resolve) => {
        const call = {
          request: { n: 1 },
          metadata: new Metadata(),
          getDeadline: () => deadline,
          getPath: () => '/test.Ping/Ping',
          sendMetadata: () => undefined,
        };
        (bound.ping as unknown as (call: unknown, callback: (error: { code?: number } | null) => void) => void)(call, resolve);
      });
    expect(await answer(new Date(Date.now() - 1))).toMatchObject({ code: grpcStatus.DEADLINE_EXCEEDED });
    expect(started).toBe(0);
    expect(await answer(new Date(Date.now() + 5_000))).toBeNull();
    expect(started).toBe(1);
  });
});
