import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { FairScheduler } from '../concurrency/fair-scheduler';
import type { Logger } from '../logger';
import { bindService, type AsyncService } from './unary';

type Handler = (...args: never[]) => unknown;

/**
 * One RPC's handler, in a file of its own: the service's dependencies first, then the request (and the call) of
 * the generated service's method K, answering its async reply (or its stream of messages).
 */
export type RpcHandler<S, K extends keyof S, D> = AsyncService<S>[K] extends (...args: infer A) => infer R
  ? (deps: D, ...args: A) => R
  : never;

/** Every RPC of a service with its handler: what server.ts lists. */
export type RpcHandlers<S, D> = { [K in keyof S]: RpcHandler<S, K, D> };

/**
 * Binds a service's handlers to its dependencies and to grpc-js (bindService: the one place a gRPC callback is
 * called). The only way the services serve RPCs. A `scheduler` shares the process's places for unary calls fairly
 * among organizations.
 */
export function bindHandlers<S extends UntypedServiceImplementation, D>(
  deps: D,
  handlers: RpcHandlers<S, D>,
  logger: Logger,
  scheduler?: FairScheduler,
): S {
  const withDeps = Object.fromEntries(
    Object.entries(handlers as Record<string, Handler>).map(([name, handler]) => [
      name,
      (...args: unknown[]) => (handler as (deps: D, ...rest: unknown[]) => unknown)(deps, ...args),
    ]),
  );
  return bindService(withDeps as AsyncService<S>, logger, scheduler);
}
