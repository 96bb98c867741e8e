import { credentials, makeGenericClientConstructor, Metadata, type Client, type ServiceDefinition, type ServiceError } from '@grpc/grpc-js';
import { fromGrpcError } from '../errors/grpc-errors';

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

export function createAsyncClient<D extends ServiceDefinition>(definition: D, address: string, name: string): AsyncClient<D> & { close(): void } {
  const Constructor = makeGenericClientConstructor(definition, name);
  const client = new Constructor(address, credentials.createInsecure(), {
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
        call.call(client, request, new Metadata(), { deadline }, (error, response) =>
          error ? reject(fromGrpcError(error)) : resolve(response),
        );
      });
  }
  return asyncClient as AsyncClient<D> & { close(): void };
}
