import type { handleServerStreamingCall, handleUnaryCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { AppError } from '../errors/app-error';
import { createAsyncClient } from './client';
import { startGrpcServer, type RunningGrpcServer } from './server';
import { bindService, type AsyncService } from './unary';

const KEYS = { secret: 'k'.repeat(32) };
const CALLER = { name: 'test', secret: KEYS.secret };

// A tiny service over a real in-process grpc-js server on a free port: JSON on the wire, one RPC of each kind.
interface CountRequest {
  count: number;
  fail_after?: number;
  fail_with?: 'app' | 'bug';
  payload_bytes?: number;
}
interface Item {
  n: number;
  note?: string;
  payload?: string;
}

const json = {
  requestSerialize: (value: CountRequest) => Buffer.from(JSON.stringify(value)),
  requestDeserialize: (buffer: Buffer) => JSON.parse(buffer.toString()) as CountRequest,
  responseSerialize: (value: Item) => Buffer.from(JSON.stringify(value)),
  responseDeserialize: (buffer: Buffer) => JSON.parse(buffer.toString()) as Item,
};
const definition = {
  count: { path: '/test.Counter/Count', requestStream: false as const, responseStream: true as const, ...json },
  first: { path: '/test.Counter/First', requestStream: false as const, responseStream: false as const, ...json },
};
interface CounterServer extends UntypedServiceImplementation {
  count: handleServerStreamingCall<CountRequest, Item>;
  first: handleUnaryCall<CountRequest, Item>;
}

/** What the server side did, for the assertions: items produced, and whether each generator's `finally` ran. */
const produced: number[] = [];
let finished: () => void = () => undefined;
const errors: unknown[] = [];

const handlers: AsyncService<CounterServer> = {
  count: async function* (request) {
    try {
      for (let n = 0; n < request.count; n++) {
        if (n === request.fail_after) {
          if (request.fail_with === 'bug') throw new Error('secret detail');
          throw new AppError('VALIDATION_ERROR', 'n went too far', { n });
        }
        produced.push(n);
        yield { n, note: n % 2 === 0 ? null : 'odd', payload: request.payload_bytes ? 'x'.repeat(request.payload_bytes) : undefined };
      }
    } finally {
      finished();
    }
  },
  first: async (request) => ({ n: request.count, note: null }),
};

const logger = Object.assign(pino({ level: 'silent' }), { error: (...args: unknown[]) => void errors.push(args[0]) });
let server: RunningGrpcServer;
let client: ReturnType<typeof createAsyncClient<typeof definition>>;

beforeAll(async () => {
  server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    services: [{ definition, implementation: bindService(handlers, logger) }],
    identity: KEYS,
  });
  client = createAsyncClient(definition, `127.0.0.1:${server.port}`, 'test.Counter', { identity: CALLER });
});
afterAll(async () => {
  client.close();
  await server.stop(100);
});

const reset = () => {
  produced.length = 0;
  errors.length = 0;
  return new Promise<void>((resolve) => (finished = resolve));
};
const collect = async (iterable: AsyncIterable<Item>) => {
  const items: Item[] = [];
  for await (const item of iterable) items.push(item);
  return items;
};

describe('server-streaming RPCs through bindService and createAsyncClient', () => {
  it('types streaming methods as async iterables and unary ones as promises', () => {
    expectTypeOf(client.count).returns.toEqualTypeOf<AsyncIterable<Item>>();
    expectTypeOf(client.first).returns.toEqualTypeOf<Promise<Item>>();
  });

  it('delivers every item in order, nulls dropped, then ends; the unary method still answers', async () => {
    const done = reset();
    const items = await collect(client.count({ count: 300 }));
    expect(items.map((item) => item.n)).toEqual(Array.from({ length: 300 }, (_, n) => n));
    expect(items[0]).toEqual({ n: 0 });
    expect(items[1]).toEqual({ n: 1, note: 'odd' });
    await done;
    expect(await client.first({ count: 7 })).toEqual({ n: 7 });
  });

  it('opens the call only when iteration starts', async () => {
    void reset();
    client.count({ count: 3 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(produced).toEqual([]);
  });

  it('throws the AppError of a failure mid-stream, with its code and details, after the items sent before it', async () => {
    void reset();
    const items: number[] = [];
    const failure = await (async () => {
      for await (const item of client.count({ count: 10, fail_after: 4 })) items.push(item.n);
    })().catch((error: unknown) => error);
    expect(items).toEqual([0, 1, 2, 3]);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'VALIDATION_ERROR', message: 'n went too far', details: { n: 4 } });
    expect(errors).toEqual([]);
  });

  it('answers an unexpected error as INTERNAL_ERROR without its message, and logs it', async () => {
    void reset();
    const failure = await collect(client.count({ count: 10, fail_after: 2, fail_with: 'bug' })).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect((failure as AppError).message).not.toContain('secret');
    expect(errors).toHaveLength(1);
  });

  it('cancels the call when the reader breaks out: the server generator stops and its finally runs', async () => {
    const done = reset();
    for await (const item of client.count({ count: 1_000_000 })) if (item.n === 2) break;
    await done;
    const stoppedAt = produced.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(produced.length).toBe(stoppedAt);
    expect(stoppedAt).toBeLessThan(1_000);
  });

  it('lets a slow reader set the pace: the server does not run ahead of what the transport holds', async () => {
    const done = reset();
    const read: number[] = [];
    for await (const item of client.count({ count: 100_000, payload_bytes: 16_384 })) {
      read.push(item.n);
      if (read.length === 3) await new Promise((resolve) => setTimeout(resolve, 300));
      if (read.length === 4) break;
    }
    await done;
    // 100,000 items of 16 KiB would be produced in 300 ms without back-pressure; flow-control windows hold a few MiB.
    expect(produced.length).toBeLessThan(1_000);
  });

  it('fails with UPSTREAM_TIMEOUT at the deadline and stops the server generator', async () => {
    const done = reset();
    const failure = await (async () => {
      for await (const _item of client.count({ count: 100_000, payload_bytes: 16_384 }, { timeoutMs: 300 })) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    await done;
  });
});
