import {
  Channel,
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
import { currentCost, DB_COMMANDS_METADATA, type RequestCost } from '../mongo/command-count';
import { readStream } from './client-stream';
import { callDeadline } from './deadline';
import { currentRequestId, REQUEST_ID_METADATA } from './request-id';
import { identityClientInterceptor, type CallerIdentity } from './service-identity';

export interface CallOptions {
  /**
   * Milliseconds before the call fails with UPSTREAM_TIMEOUT: for a stream, the whole stream, not one message
   * (default DEFAULT_TIMEOUT_MS, DEFAULT_STREAM_TIMEOUT_MS for a stream). Never later than the deadline of the
   * request being served (deadline.ts).
   */
  timeoutMs?: number;
}

/** Admits or refuses the calls to one service, and hears how each ended: the gateway's circuit breaker. */
export interface CallGuard {
  /**
   * Throws (an AppError) to refuse a call without sending it; else returns what hears how this call ended: its raw
   * gRPC error, or undefined on success (transportFailureOf tells a service that did not answer).
   */
  admit(): (error: unknown) => void;
}

const unguarded = (): void => undefined;

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

/**
 * Calls do not wait for a connection (grpc-js's default, waitForReady false): with every address refusing, a call
 * fails UNAVAILABLE at once instead of waiting out its deadline. Reconnection backs off from 0.5 s up to 5 s, not
 * grpc-js's 120 s, so a service that comes back is used again within seconds. A DNS target (a Kubernetes headless
 * service) is resolved again at most every 2 s instead of grpc-js's 30 s, so during a rollout or a scale-out the
 * channel drops gone pods and uses new ones within seconds rather than failing calls for half a minute.
 */
const CHANNEL_OPTIONS = {
  ...ROUND_ROBIN,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.enable_retries': 1,
  'grpc.initial_reconnect_backoff_ms': 500,
  'grpc.max_reconnect_backoff_ms': 5_000,
  'grpc.dns_min_time_between_resolutions_ms': 2_000,
};

/** One channel per address, shared by the clients of every service behind it, closed with the last of them. */
const channels = new Map<string, { channel: Channel; users: number }>();

/**
 * The channel to `address`: the CRM's six services share one set of HTTP/2 connections (and their keepalive pings)
 * instead of opening one each, so calls to any of them multiplex over the connections already open.
 */
function sharedChannel(address: string): { channel: Channel; release(): void } {
  const target = grpcTarget(address);
  let entry = channels.get(target);
  if (!entry) {
    entry = { channel: new Channel(target, credentials.createInsecure(), CHANNEL_OPTIONS), users: 0 };
    channels.set(target, entry);
  }
  const shared = entry;
  shared.users += 1;
  let released = false;
  return {
    channel: shared.channel,
    release() {
      if (released) return;
      released = true;
      shared.users -= 1;
      if (shared.users > 0) return;
      channels.delete(target);
      shared.channel.close();
    },
  };
}

export interface ClientOptions {
  /** Who calls: every call carries its token (service-identity.ts), or the service refuses it UNAUTHENTICATED. */
  identity: CallerIdentity;
  guard?: CallGuard;
}

export function createAsyncClient<D extends ServiceDefinition>(
  definition: D,
  address: string,
  name: string,
  { identity, guard }: ClientOptions,
): AsyncClient<D> & { close(): void } {
  const Constructor = makeGenericClientConstructor(definition, name);
  const { channel, release } = sharedChannel(address);
  const client = new Constructor(grpcTarget(address), credentials.createInsecure(), { channelOverride: channel }) as Client &
    Record<string, UnaryMethod | StreamMethod>;
  // Per call, not on the client: grpc-js drops a client's interceptors when a call brings its own.
  const withIdentity = identityClientInterceptor(identity);
  const asyncClient: Record<string, unknown> = { close: release };
  for (const [method, { responseStream, requestSerialize, responseSerialize }] of Object.entries(definition)) {
    const call = client[method];
    if (!call) throw new Error(`unknown rpc ${method}`);
    asyncClient[method] = responseStream
      ? (request: unknown, options: CallOptions = {}) => {
          let settle: (error: unknown) => void = unguarded;
          return readStream(
            () => {
              settle = guard?.admit() ?? unguarded;
              const deadline = callDeadline(options.timeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS);
              return (call as StreamMethod).call(client, request, requestMetadata(), { deadline, interceptors: [withIdentity] });
            },
            (error) => settle(error),
          );
        }
      : (request: unknown, options: CallOptions = {}) =>
          new Promise((resolve, reject) => {
            const settle = guard?.admit() ?? unguarded;
            const cost = currentCost();
            const interceptors = cost ? [withIdentity, countCostInto(cost, requestSerialize, responseSerialize)] : [withIdentity];
            const deadline = callDeadline(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
            (call as UnaryMethod).call(client, request, requestMetadata(), { deadline, interceptors }, (error, response) => {
              settle(error ?? undefined);
              if (error) reject(fromGrpcError(error));
              else resolve(response);
            });
          });
  }
  return asyncClient as AsyncClient<D> & { close(): void };
}

/** The metadata of a call: the id of the API request being served, when there is one (request-id.ts). */
function requestMetadata(): Metadata {
  const metadata = new Metadata();
  const requestId = currentRequestId();
  if (requestId) metadata.set(REQUEST_ID_METADATA, requestId);
  return metadata;
}

/**
 * Diagnostics (command-count.ts): asks the service for its database commands of this call and adds them (its
 * response headers) to the caller's count, with the bytes of the messages each way — serialized once more to
 * measure them, which only a counted request pays.
 */
function countCostInto(
  cost: RequestCost,
  requestSerialize: (value: never) => Buffer,
  responseSerialize: (value: never) => Buffer,
): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set(DB_COMMANDS_METADATA, '1');
        next(metadata, {
          onReceiveMetadata(received, nextMetadata) {
            cost.commands.push(
              ...String(received.get(DB_COMMANDS_METADATA)[0] ?? '')
                .split(',')
                .filter(Boolean),
            );
            nextMetadata(received);
          },
          onReceiveMessage(message, nextMessage) {
            // A failed call delivers no message (null).
            if (message !== null && message !== undefined) cost.grpc.received += responseSerialize(message as never).length;
            nextMessage(message);
          },
        });
      },
      sendMessage(message, next) {
        cost.grpc.sent += requestSerialize(message as never).length;
        next(message);
      },
    });
}
