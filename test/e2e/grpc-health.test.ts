import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { describe, expect, it } from 'vitest';
import { testSystem } from '../support/system';

type HealthClient = {
  check(request: { service: string }, callback: (error: ServiceError | null, response?: { status: string | number }) => void): void;
  close(): void;
};

async function check(address: string, service: string): Promise<string | number | undefined> {
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

describe('gRPC health checking (grpc.health.v1)', () => {
  it.each([
    ['CRM', 'CRM_GRPC_URL', ['', 'crm.v1.ContactService', 'crm.v1.AccountService']],
    ['webhooks', 'WEBHOOKS_GRPC_URL', ['']],
    ['messaging', 'MESSAGING_GRPC_URL', ['', 'messaging.v1.MessagingService']],
  ])('every replica of the %s service reports SERVING for the server and its services', async (_name, variable, services) => {
    // Every replica, each on its own port.
    const replicas = (testSystem().env[variable] ?? '').split(',');
    expect(replicas.length).toBeGreaterThanOrEqual(1);
    for (const address of replicas) for (const service of services) expect([1, 'SERVING']).toContain(await check(address, service));
  });
});
