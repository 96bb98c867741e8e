import {
  credentials,
  InterceptingCall,
  makeGenericClientConstructor,
  Metadata,
  type Client,
  type Interceptor,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { fromGrpcError } from '../errors/grpc-errors';
import { currentCommands, DB_COMMANDS_METADATA } from '../mongo/command-count';

export interface CallOptions {
  /** Milliseconds before the call fails with SERVICE_UNAVAILABLE. */
  timeoutMs?: number;
}

/** The promise form of a generated service definition: each RPC resolves to its response or rejects with an AppError. */
export type AsyncClient<D> = {
  [K in keyof D]: D[K] extends { requestSerialize: (value: infer Req) => Buffer; responseDeserialize: (value: Buffer) => infer Res }
    ? (request: Req, options?: CallOptions) => Promise<Res>
    : never;
};

const DEFAULT_TIMEOUT_MS = 15_000;

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
  }) as Client & Record<string, (req: unknown, md: Metadata, opts: object, cb: (e: ServiceError | null, r: unknown) => void) => void>;
  const asyncClient: Record<string, unknown> = { close: () => client.close() };
  for (const method of Object.keys(definition)) {
    asyncClient[method] = (request: unknown, options: CallOptions = {}) =>
      new Promise((resolve, reject) => {
        const deadline = new Date(Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
        const call = client[method];
        if (!call) return reject(new Error(`unknown rpc ${method}`));
        const commands = currentCommands();
        const interceptors = commands ? [collectCommandsInto(commands)] : [];
        call.call(client, request, new Metadata(), { deadline, interceptors }, (error, response) =>
          error ? reject(fromGrpcError(error)) : resolve(response),
        );
      });
  }
  return asyncClient as AsyncClient<D> & { close(): void };
}

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
