import { describe, expect, it } from 'vitest';
import { grpcHealth as check, SERVING } from '../support/grpc-health';
import { testSystem } from '../support/system';

describe('gRPC health checking (grpc.health.v1)', () => {
  it.each([
    ['CRM', 'CRM_GRPC_URL', ['', 'crm.v1.ContactService', 'crm.v1.AccountService']],
    ['webhooks', 'WEBHOOKS_GRPC_URL', ['']],
    ['messaging', 'MESSAGING_GRPC_URL', ['', 'messaging.v1.MessagingService']],
  ])('every replica of the %s service reports SERVING for the server and its services', async (_name, variable, services) => {
    // Every replica, each on its own port.
    const replicas = (testSystem().env[variable] ?? '').split(',');
    expect(replicas.length).toBeGreaterThanOrEqual(1);
    for (const address of replicas) for (const service of services) expect(SERVING).toContain(await check(address, service));
  });
});
