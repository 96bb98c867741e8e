import { AccountServiceService } from '@crm/proto/gen/crm/v1/accounts';
import { createAsyncClient, kafkaFromEnv } from '@crm/shared';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../deploy/lib/ports';
import { startService, waitUntil } from '../../deploy/lib/processes';
import { grpcHealth, NOT_SERVING, SERVING } from '../support/grpc-health';
import { isolatedWebhooks } from '../support/isolated-webhooks';
import { createTestOrg } from '../support/orgs';
import { testCaller, testSystem } from '../support/system';
import { startReceiver } from '../support/webhook-receiver';

const cleanups: Array<() => Promise<void> | void> = [];

/** One more gateway of the test system, on its own port, with `env` on top. */
async function startGateway(env: Record<string, string>) {
  const system = testSystem();
  const port = await freePort();
  const logFile = join(system.logDir, `gateway-drain-${port}.log`);
  const gateway = startService(
    'gateway-drain',
    'gateway/src/main.ts',
    { ...system.env, PORT: String(port), METRICS_PORT: '0', ...env },
    logFile,
  );
  cleanups.push(() => gateway.stop('SIGKILL'));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntil('the draining gateway', async () => (await fetch(`${baseUrl}/readyz`)).ok, {
    timeoutMs: 60_000,
    process: gateway,
    logFile,
  });
  return { gateway, baseUrl };
}
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

// What Kubernetes does on a rolling update or a scale-in: SIGTERM, then SIGKILL after the grace period. A drained
// process finishes what it accepted, refuses what comes after, and exits 0 well before the kill.
describe('SIGTERM drains instead of dropping work', () => {
  it(
    'the gateway fails readiness, serves through its drain, answers the request in flight, then exits 0',
    { timeout: 90_000 },
    async () => {
      const org = await createTestOrg();
      // The receiver answers after 0.6 s (within the tests' WEBHOOK_MANUAL_TIMEOUT_MS, the bound of a test send):
      // POST /v1/webhooks/{id}/test makes its attempt within the call, so the request stays in flight across the
      // signal and into the drain.
      const receiver = await startReceiver({ status: 200, delayMs: 600 });
      cleanups.push(() => receiver.close());
      const webhook = await org.client.POST('/v1/webhooks', { body: { name: 'drain', url: receiver.url, events: ['contact.created'] } });
      expect(webhook.response.status).toBe(201);
      const { gateway, baseUrl } = await startGateway({ SHUTDOWN_DRAIN_MS: '800' });
      const headers = { authorization: `Bearer ${org.key}` };

      const inFlight = fetch(`${baseUrl}/v1/webhooks/${webhook.data!.data.id}/test`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{}',
      });
      await receiver.waitFor((all) => all.length >= 1, 10_000);
      const signalledAt = Date.now();
      gateway.child.kill('SIGTERM');

      // Draining: readiness fails at once, and requests are still served, each telling the client to reconnect.
      await waitUntil('readiness to fail', async () => (await fetch(`${baseUrl}/readyz`)).status === 503, { timeoutMs: 500 });
      expect(await (await fetch(`${baseUrl}/readyz`)).json()).toEqual({ status: 'draining' });
      const served = await fetch(`${baseUrl}/v1/me`, { headers });
      expect(served.status).toBe(200);
      expect(served.headers.get('connection')).toBe('close');

      const answer = await inFlight;
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { data: { status: string } }).data.status).toBe('succeeded');
      expect(await gateway.exited).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(15_000);
      await expect(fetch(`${baseUrl}/healthz`)).rejects.toThrow();
    },
  );

  it('the gateway never answers a bare 503 while it shuts down: every answer is served or the envelope', { timeout: 90_000 }, async () => {
    const org = await createTestOrg();
    const { gateway, baseUrl } = await startGateway({ SHUTDOWN_DRAIN_MS: '500' });
    const answers: Array<{ status: number; code?: string; retryAfter: string | null }> = [];
    let unanswered = 0;
    let running = true;
    // Eight clients on keep-alive connections (fetch's default) until the process is gone.
    const clients = Array.from({ length: 8 }, async () => {
      while (running) {
        try {
          const response = await fetch(`${baseUrl}/v1/me`, { headers: { authorization: `Bearer ${org.key}` } });
          const body = (await response.json()) as { error?: { code?: string } };
          answers.push({ status: response.status, code: body.error?.code, retryAfter: response.headers.get('retry-after') });
        } catch {
          // A refused or reset connection reached no handler: a balancer sends it elsewhere.
          unanswered++;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    running = false;
    await Promise.all(clients);

    const served = answers.filter((answer) => answer.status === 200).length;
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(served, `${unanswered} requests reached no handler`).toBeGreaterThan(10);
    for (const answer of refused) expect(answer).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: '1' });
  });

  it('a webhook replica leaves its consumer group and exits 0, so its partitions move at once', { timeout: 120_000 }, async () => {
    const { env } = testSystem();
    const { replicas, consumerGroup, dropDatabase } = await isolatedWebhooks({ replicas: 1, name: 'drain' });
    cleanups.push(() => dropDatabase());
    const running = await replicas[0]!.start();
    cleanups.push(() => running.stop('SIGKILL'));

    const admin = kafkaFromEnv(env, { clientId: 'drain-test' }).admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    const state = async () => (await admin.describeGroups([consumerGroup])).groups[0]?.state;
    await waitUntil('the replica joined its group', async () => (await state()) === 'Stable', { timeoutMs: 60_000 });

    const signalledAt = Date.now();
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(15_000);
    // A killed member would stay in the group until its session timed out; a drained one has left it.
    expect(await state()).toBe('Empty');
  });

  it(
    'a service signalled while it is still starting stops what it started and exits 0, not by the signal',
    { timeout: 90_000 },
    async () => {
      const { env, logDir } = testSystem();
      const port = await freePort();
      const logFile = join(logDir, `crm-starting-${port}.log`);
      // Nothing listens on the brokers' port: the replica has its database and waits for Kafka (the start-up retry).
      const brokers = `127.0.0.1:${await freePort()}`;
      const crm = startService(
        'crm-starting',
        'services/crm/src/main.ts',
        { ...env, CRM_GRPC_PORT: String(port), KAFKA_BROKERS: brokers },
        logFile,
      );
      cleanups.push(() => crm.stop('SIGKILL'));
      await waitUntil(
        'the replica waiting for Kafka',
        async () => readFileSync(logFile, 'utf8').includes('the events topic not reachable yet'),
        {
          timeoutMs: 60_000,
          process: crm,
          logFile,
        },
      );
      const signalledAt = Date.now();
      crm.child.kill('SIGTERM');
      expect(await crm.exited).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(10_000);
    },
  );

  it('a CRM replica answers NOT_SERVING at once, serves every call through its drain, then exits 0', { timeout: 90_000 }, async () => {
    const { env, logDir } = testSystem();
    const org = await createTestOrg();
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const logFile = join(logDir, `crm-drain-${port}.log`);
    const crmEnv = { ...env, CRM_GRPC_PORT: String(port), CRM_MESSAGE_CONSUMER_ENABLED: 'false', SHUTDOWN_DRAIN_MS: '3000' };
    const crm = startService('crm-drain', 'services/crm/src/main.ts', crmEnv, logFile);
    cleanups.push(() => crm.stop('SIGKILL'));
    const accounts = createAsyncClient(AccountServiceService, address, 'crm.v1.AccountService', { identity: testCaller() });
    cleanups.push(() => accounts.close());
    await waitUntil('the draining CRM', async () => SERVING.includes(await grpcHealth(address, '')), {
      timeoutMs: 60_000,
      process: crm,
      logFile,
    });
    const authenticate = () =>
      accounts.authenticate({ key_hash: createHash('sha256').update(org.key).digest('hex') }, { timeoutMs: 5_000 });

    crm.child.kill('SIGTERM');
    // Load balancers and probes see the replica leave before its listener closes...
    await waitUntil('NOT_SERVING', async () => NOT_SERVING.includes(await grpcHealth(address, '')), { timeoutMs: 2_000 });
    // ...and calls that still reach it meanwhile are answered, not refused.
    const answers = await Promise.all(Array.from({ length: 10 }, authenticate));
    expect(answers.map((principal) => principal.org_id)).toEqual(Array.from({ length: 10 }, () => org.orgId));
    expect(await crm.exited).toBe(0);
    await expect(authenticate()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});
