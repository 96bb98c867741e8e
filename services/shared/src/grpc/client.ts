import {
  credentials,
  InterceptingCall,
  makeGenericClientConstructor,
  Metadata,
  type CallOptions as GrpcCallOptions,
  type Client,
  type ClientReadableStream,
  type Interceptor,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { fromGrpcError } from '../errors/grpc-errors';
import { currentCommands, DB_COMMANDS_METADATA } from '../mongo/command-count';
import { readStream } from './client-stream';

export interface CallOptions {
  /**
   * Milliseconds before the call fails with SERVICE_UNAVAILABLE: for a stream, the whole stream, not one message
   * (default DEFAULT_TIMEOUT_MS, DEFAULT_STREAM_TIMEOUT_MS for a stream).
   */
  timeoutMs?: number;
}

type AsyncMethod<M> = M extends { requestStream: true }
  ? never
  : M extends { requestSerialize: (value: infer Req) => Buffer; responseDeserialize: (value: Buffer) => infer Res }
    ? M extends { responseStream: true }
      ? (request: Req, options?: CallOptions) => AsyncIterable<Res>
      : (request: Req, options?: CallOptions) => Promise<Res>
    : never;

/**
 * The async form of a generated service definition: each unary RPC resolves to its response or rejects with an
 * AppError; each server-streaming RPC is an async iterable of its messages that throws an AppError when the call fails.
 */
export type AsyncClient<D> = { [K in keyof D]: AsyncMethod<D[K]> };

const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * A stream's deadline bounds the whole stream, and its reader sets the pace (the server waits while the reader is
 * busy), so a large audience read by a paced sender takes minutes, not the seconds of a unary call. Still finite:
 * a reader that stalls must not hold a server's call and cursor position forever.
 */
export const DEFAULT_STREAM_TIMEOUT_MS = 10 * 60_000;

type UnaryMethod = (req: unknown, md: Metadata, opts: GrpcCallOptions, cb: (e: ServiceError | null, r: unknown) => void) => void;
type StreamMethod = (req: unknown, md: Metadata, opts: GrpcCallOptions) => ClientReadableStream<unknown>;

/**
 * The channel target of a service address. A comma-separated list of `host:port` (local replicas) becomes a
 * static `ipv4:` target; a single name may resolve to several addresses (`dns:///crm-headless:50051` in
 * Kubernetes). Either way calls are spread round-robin over every address, not pinned to the first.
 */
export function grpcTarget(address: string): string {
  return address.includes(',') ? `ipv4:${address}` : address;
}

export const ROUND_ROBIN = { 'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }) };

export function createAsyncClient<D extends ServiceDefinition>(
  definition: D,
  address: string,
  name: string,
): AsyncClient<D> & { close(): void } {
  const Constructor = makeGenericClientConstructor(definition, name);
  const client = new Constructor(grpcTarget(address), credentials.createInsecure(), {
    ...ROUND_ROBIN,
    'grpc.keepalive_time_ms': 30_000,
    'grpc.enable_retries': 1,
  }) as Client & Record<string, UnaryMethod | StreamMethod>;
  const asyncClient: Record<string, unknown> = { close: () => client.close() };
  for (const [method, { responseStream }] of Object.entries(definition)) {
    const call = client[method];
    if (!call) throw new Error(`unknown rpc ${method}`);
    asyncClient[method] = responseStream
      ? (request: unknown, options: CallOptions = {}) =>
          readStream(() =>
            (call as StreamMethod).call(client, request, new Metadata(), {
              deadline: deadlineIn(options.timeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS),
            }),
          )
      : (request: unknown, options: CallOptions = {}) =>
          new Promise((resolve, reject) => {
            const commands = currentCommands();
            const interceptors = commands ? [collectCommandsInto(commands)] : [];
            const deadline = deadlineIn(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
            (call as UnaryMethod).call(client, request, new Metadata(), { deadline, interceptors }, (error, response) =>
              error ? reject(fromGrpcError(error)) : resolve(response),
            );
          });
  }
  return asyncClient as AsyncClient<D> & { close(): void };
}

const deadlineIn = (ms: number): Date => new Date(Date.now() + ms);

/** Adds the service's database commands of one call (its response headers) to the caller's count (see command-count.ts). */
function collectCommandsInto(commands: string[]): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        next(metadata, {
          onReceiveMetadata(received, nextMetadata) {
            commands.push(
              ...String(received.get(DB_COMMANDS_METADATA)[0] ?? '')
                .split(',')
                .filter(Boolean),
            );
            nextMetadata(received);
          },
        });
      },
    });
}
