import type { ServerWritableStream } from '@grpc/grpc-js';
import { AppError } from '../errors/app-error';
import { toGrpcError } from '../errors/grpc-errors';
import type { Logger } from '../logger';
import { RPC_CANCELLED, RPC_OK, RPC_UNKNOWN } from './server-metrics';
import { dropNulls, type Nullable } from './wire';

/** The async form of a server-streaming RPC: an async generator of messages (nulls allowed, as for unary replies). */
export type StreamHandler<Req, Res> = (request: Req, call: ServerWritableStream<Req, Res>) => AsyncIterable<Nullable<Res>>;

/**
 * Writes what a stream handler yields to its call, then ends it. The reader sets the pace: when grpc-js buffers
 * more than its high-water mark, the next item is not pulled until 'drain'. A cancelled call (client gone, its
 * deadline passed) stops the loop, whose `break` returns the iterator, so the generator's `finally` runs and no
 * further page is read. A failure ends the call with its catalogue error. Never rejects.
 */
export async function replyWithStream<Req, Res>(
  call: ServerWritableStream<Req, Res>,
  items: AsyncIterable<Nullable<Res>>,
  logger: Logger,
  rpc: string,
): Promise<number> {
  try {
    for await (const item of items) {
      if (call.cancelled) break;
      if (!call.write(dropNulls(item))) await writable(call);
      if (call.cancelled) break;
    }
  } catch (error) {
    if (!(error instanceof AppError)) logger.error({ err: error, rpc }, 'unhandled error in rpc');
    if (call.cancelled) return RPC_CANCELLED;
    // grpc-js turns an 'error' event on a server stream into the call's status, trailers included (the AppError).
    const grpcError = toGrpcError(error);
    call.emit('error', grpcError);
    return grpcError.code ?? RPC_UNKNOWN;
  }
  if (call.cancelled) return RPC_CANCELLED;
  call.end();
  return RPC_OK;
}

const WAKE_EVENTS = ['drain', 'cancelled', 'close', 'error'] as const;

/** Resolves once the call can take more, or will never need to (cancelled, closed, failed). */
function writable<Req, Res>(call: ServerWritableStream<Req, Res>): Promise<void> {
  if (call.cancelled) return Promise.resolve();
  return new Promise((resolve) => {
    const wake = () => {
      for (const event of WAKE_EVENTS) call.off(event, wake);
      resolve();
    };
    for (const event of WAKE_EVENTS) call.on(event, wake);
  });
}
