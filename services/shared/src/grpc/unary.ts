import { Metadata, type handleUnaryCall, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { AppError } from '../errors/app-error';
import { toGrpcError } from '../errors/grpc-errors';
import type { Logger } from '../logger';
import { DB_COMMANDS_METADATA, withCommandCount } from '../mongo/command-count';
import { dropNulls, type Nullable } from './wire';

type AsyncHandler<H> =
  H extends handleUnaryCall<infer Req, infer Res> ? (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Nullable<Res>> : never;

/**
 * The async form of a generated service interface: each RPC returns a promise (nulls allowed where the
 * message has optional fields) or throws an AppError.
 */
export type AsyncService<S> = { [K in keyof S]: AsyncHandler<S[K]> };

/**
 * Binds async handlers to grpc-js. The only place a gRPC callback is called: results become replies, AppErrors
 * travel with their catalogue code, anything else is logged with its trace id and answered as INTERNAL_ERROR.
 */
export function bindService<S extends UntypedServiceImplementation>(handlers: AsyncService<S>, logger: Logger): S {
  const bound: Record<string, handleUnaryCall<unknown, unknown>> = {};
  for (const [name, handler] of Object.entries(
    handlers as Record<string, (req: unknown, call: ServerUnaryCall<unknown, unknown>) => Promise<unknown>>,
  )) {
    bound[name] = (call, callback) => {
      const { commands, result } = withCommandCount(() => handler(call.request, call));
      result.then(
        (response) => {
          // The call's database commands travel back to the gateway in the response headers (the query budget).
          // Not in the trailer: OpenTelemetry's server instrumentation drops a unary call's trailer.
          const metadata = new Metadata();
          metadata.set(DB_COMMANDS_METADATA, commands.join(','));
          call.sendMetadata(metadata);
          callback(null, dropNulls(response));
        },
        (error: unknown) => {
          if (!(error instanceof AppError)) logger.error({ err: error, rpc: name }, 'unhandled error in rpc');
          callback(toGrpcError(error));
        },
      );
    };
  }
  return bound as unknown as S;
}
