import {
  Metadata,
  status as GrpcStatus,
  type handleServerStreamingCall,
  type handleUnaryCall,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { FairScheduler } from '../concurrency/fair-scheduler';
import { AppError } from '../errors/app-error';
import { toGrpcError } from '../errors/grpc-errors';
import type { Logger } from '../logger';
import { DB_COMMANDS_METADATA, withCommandCount } from '../mongo/command-count';
import { deadlineMs, withDeadline } from './deadline';
import { REQUEST_ID_METADATA, withRequestId } from './request-id';
import { RPC_OK, RPC_UNKNOWN, timeRpc } from './server-metrics';
import { replyWithStream, type StreamHandler } from './server-stream';
import { dropNulls, type Nullable } from './wire';

// Server-streaming first: a unary handler type, with its two parameters, never matches the one-parameter streaming one.
type AsyncHandler<H> =
  H extends handleServerStreamingCall<infer Req, infer Res>
    ? StreamHandler<Req, Res>
    : H extends handleUnaryCall<infer Req, infer Res>
      ? (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Nullable<Res>>
      : never;

/**
 * The async form of a generated service interface: each unary RPC returns a promise (nulls allowed where the
 * message has optional fields) or throws an AppError; each server-streaming RPC is an async generator of messages.
 */
export type AsyncService<S> = { [K in keyof S]: AsyncHandler<S[K]> };

type AnyHandler = (request: unknown, call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>) => unknown;

/**
 * Binds async handlers to grpc-js. The only place a gRPC callback is called: results become replies, AppErrors
 * travel with their catalogue code, anything else is logged with its request id and answered as INTERNAL_ERROR.
 * A handler runs under its call's deadline (deadline.ts): the calls it makes to other services end by then.
 * With a `scheduler`, a unary call waits for a place in its organization's turn (fair-scheduler.ts) and is never
 * started if its deadline passes or its caller goes away meanwhile.
 */
export function bindService<S extends UntypedServiceImplementation>(
  handlers: AsyncService<S>,
  logger: Logger,
  scheduler?: FairScheduler,
): S {
  const bound: Record<string, handleUnaryCall<unknown, unknown> | handleServerStreamingCall<unknown, unknown>> = {};
  for (const [name, handler] of Object.entries(handlers as Record<string, AnyHandler>)) {
    // grpc-js calls a method by the kind its definition gives it: a unary one with a reply callback, a
    // server-streaming one (`responseStream: true`) with none, its replies written to the call.
    bound[name] = (call: ServerWritableStream<unknown, unknown>, callback?: sendUnaryData<unknown>) => {
      const done = timeRpc(call);
      const deadline = deadlineMs(call.getDeadline());
      // A call whose caller has stopped waiting (it queued here past its deadline) is not started: its work would
      // be thrown away and would delay the calls still worth answering.
      if (deadline !== undefined && deadline <= Date.now()) return refuseExpired(call, callback, done);
      if (callback) {
        // The API request the call serves (request-id.ts): the events its handler raises record it.
        const requestId = call.metadata.get(REQUEST_ID_METADATA)[0]?.toString();
        const run = () => withRequestId(requestId, () => withDeadline(deadline, async () => handler(call.request, call)));
        const serve = () => replyOnce(call, callback, run, logger, name, done);
        if (scheduler) scheduled(scheduler, call, deadline, serve, () => refuseExpired(call, callback, done));
        else void serve();
      } else void withDeadline(deadline, () => replyWithStream(call, startStream(handler, call), logger, name)).then(done);
    };
  }
  return bound as unknown as S;
}

/** Serves the call once the scheduler gives its organization a place; refuses it if the place came too late. */
function scheduled(
  scheduler: FairScheduler,
  call: ServerWritableStream<unknown, unknown>,
  deadline: number | undefined,
  serve: () => Promise<void>,
  refuse: () => void,
): void {
  const gone = new AbortController();
  const cancelled = () => gone.abort();
  call.once('cancelled', cancelled);
  const lane = (call.request as { org_id?: unknown } | null)?.org_id;
  scheduler.acquire(typeof lane === 'string' ? lane : '', deadline, gone.signal).then((release) => {
    // Only the wait for a place listens: an abort after it built a DOMException per call for nothing (profiled).
    call.off('cancelled', cancelled);
    void serve().finally(release);
  }, refuse);
}

function refuseExpired(
  call: ServerWritableStream<unknown, unknown>,
  callback: sendUnaryData<unknown> | undefined,
  done: (statusCode: number) => void,
): void {
  const expired = { code: GrpcStatus.DEADLINE_EXCEEDED, details: 'the deadline passed before the call was started' };
  if (callback) callback(expired);
  else call.emit('error', expired);
  done(GrpcStatus.DEADLINE_EXCEEDED);
}

/** The handler's generator; a handler that throws before returning one fails the stream like a generator would. */
async function* startStream(handler: AnyHandler, call: ServerWritableStream<unknown, unknown>): AsyncGenerator<unknown> {
  yield* handler(call.request, call) as AsyncIterable<unknown>;
}

function replyOnce(
  call: ServerUnaryCall<unknown, unknown>,
  callback: sendUnaryData<unknown>,
  run: () => Promise<unknown>,
  logger: Logger,
  name: string,
  done: (statusCode: number) => void,
): Promise<void> {
  // The database commands travel back only when the gateway asks (diagnostics, command-count.ts): in the response
  // headers, not the trailer, which OpenTelemetry's server instrumentation drops for a unary call.
  const counted = call.metadata.get(DB_COMMANDS_METADATA).length > 0 ? withCommandCount(run) : undefined;
  const result = counted?.result ?? run();
  return result.then(
    (response) => {
      if (counted) {
        const metadata = new Metadata();
        metadata.set(DB_COMMANDS_METADATA, counted.commands.join(','));
        call.sendMetadata(metadata);
      }
      callback(null, dropNulls(response));
      done(RPC_OK);
    },
    (error: unknown) => {
      if (!(error instanceof AppError)) logger.error({ err: error, rpc: name }, 'unhandled error in rpc');
      const grpcError = toGrpcError(error);
      callback(grpcError);
      done(grpcError.code ?? RPC_UNKNOWN);
    },
  );
}
