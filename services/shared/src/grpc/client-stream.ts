import type { ClientReadableStream } from '@grpc/grpc-js';
import { fromGrpcError } from '../errors/grpc-errors';

/**
 * The messages of a server-streaming call, which `open` starts when iteration starts. A failed call throws its
 * AppError (fromGrpcError) after the messages that arrived before the failure; leaving the loop early (break,
 * return, a throw in the loop body) cancels the call, so the server stops reading and sending. `settled` hears
 * the call's raw gRPC error, or undefined when it ended otherwise.
 */
export async function* readStream<Res>(
  open: () => ClientReadableStream<Res>,
  settled: (error: unknown) => void = () => undefined,
): AsyncGenerator<Res, void, undefined> {
  const call = open();
  let failure: unknown;
  // The loop below receives the call's errors. This listener only keeps the CANCELLED status that follows our own
  // cancel() (the stream has no reader by then) from being thrown as an unhandled 'error' event.
  call.on('error', () => undefined);
  try {
    for await (const message of call) yield message as Res;
  } catch (error) {
    failure = error;
    throw fromGrpcError(error);
  } finally {
    // A no-op once the server has sent its status.
    call.cancel();
    settled(failure);
  }
}
