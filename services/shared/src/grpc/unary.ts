import {
  Metadata,
  type handleServerStreamingCall,
  type handleUnaryCall,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { AppError } from '../errors/app-error';
import { toGrpcError } from '../errors/grpc-errors';
import type { Logger } from '../logger';
import { DB_COMMANDS_METADATA, withCommandCount } from '../mongo/command-count';
import { deadlineMs, withDeadline } from './deadline';
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
 * travel with their catalogue code, anything else is logged with its trace id and answered as INTERNAL_ERROR.
 * A handler runs under its call's deadline (deadline.ts): the calls it makes to other services end by then.
 */
export function bindService<S extends UntypedServiceImplementation>(handlers: AsyncService<S>, logger: Logger): S {
  const bound: Record<string, handleUnaryCall<unknown, unknown> | handleServerStreamingCall<unknown, unknown>> = {};
  for (const [name, handler] of Object.entries(handlers as Record<string, AnyHandler>)) {
    // grpc-js calls a method by the kind its definition gives it: a unary one with a reply callback, a
    // server-streaming one (`responseStream: true`) with none, its replies written to the call.
    bound[name] = (call: ServerWritableStream<unknown, unknown>, callback?: sendUnaryData<unknown>) => {
      const done = timeRpc(call);
      const deadline = deadlineMs(call.getDeadline());
      if (callback) replyOnce(call, callback, () => withDeadline(deadline, async () => handler(call.request, call)), logger, name, done);
      else void withDeadline(deadline, () => replyWithStream(call, startStream(handler, call), logger, name)).then(done);
    };
  }
  return bound as unknown as S;
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
): void {
  // The database commands travel back only when the gateway asks (diagnostics, command-count.ts): in the response
  // headers, not the trailer, which OpenTelemetry's server instrumentation drops for a unary call.
  const counted = call.metadata.get(DB_COMMANDS_METADATA).length > 0 ? withCommandCount(run) : undefined;
  const result = counted?.result ?? run();
  result.then(
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
