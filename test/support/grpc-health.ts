import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';

type HealthClient = {
  check(request: { service: string }, callback: (error: ServiceError | null, response?: { status: string | number }) => void): void;
  close(): void;
};

/** grpc.health.v1 Check of `service` ('' = the whole server) at `address`: SERVING is 1 (or 'SERVING'), NOT_SERVING 2. */
export async function grpcHealth(address: string, service: string): Promise<string | number | undefined> {
  const Client = makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');
  const client = new Client(address, credentials.createInsecure()) as unknown as HealthClient;
  try {
    return await new Promise((resolve, reject) =>
      client.check({ service }, (error, response) => (error ? reject(error) : resolve(response?.status))),
    );
  } finally {
    client.close();
  }
}

export const SERVING: ReadonlyArray<string | number | undefined> = [1, 'SERVING'];
export const NOT_SERVING: ReadonlyArray<string | number | undefined> = [2, 'NOT_SERVING'];
