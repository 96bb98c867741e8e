import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import { freePort, servicePorts } from '../../deploy/lib/ports';
import { generateSecrets } from '../../deploy/lib/secrets';
import { startSystem, type RunningSystem } from '../../deploy/lib/system';
import { dropNamespace } from './namespace';
import { stackForRun } from './run-stack';
import type { TestSystem } from './system';

declare module 'vitest' {
  export interface ProvidedContext {
    system: TestSystem;
  }
}

/**
 * Starts the real stack once per run (unless already running), then the services and the gateway under a
 * run-specific namespace: their own databases and events topic, so runs never see each other's data.
 */
export default async function setup(project: TestProject) {
  const { stack, release } = await stackForRun();
  const namespace = `t${Date.now().toString(36)}`;
  const runDir = mkdtempSync(join(tmpdir(), 'crm-test-'));
  const logDir = resolve(REPO_ROOT, '.local/test-logs', namespace);
  mkdirSync(logDir, { recursive: true });

  const system: RunningSystem = await startSystem({
    stack,
    namespace,
    secrets: generateSecrets(),
    gatewayPort: await freePort(),
    // Two replicas of each service (one simulator): every test runs against a scaled-out system.
    ...(await servicePorts(2)),
    // Every process serves Prometheus metrics on its own free port; metrics.test.ts scrapes them.
    metricsPort: () => freePort(),
    logDir,
    tracesDir: runDir,
    env: {
      LOG_LEVEL: 'warn',
      AUTH_CACHE_TTL_MS: '200',
      EXPOSE_DB_COMMANDS: 'true',
      RATE_LIMIT_PER_SECOND: '0',
      RATE_LIMIT_ORG_PER_SECOND: '0',
      // The per-organization bulkheads and the failed-auth throttle keep their defaults, so the whole suite proves
      // they never refuse ordinary traffic (capacity.test.ts starts gateways with small ones to prove the refusals).
      EVENTS_TOPIC_PARTITIONS: '3',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost,::1',
      WEBHOOK_RETRY_SCHEDULE_MS: '0,200,400,600,800',
      WEBHOOK_TIMEOUT_MS: '1500',
      // Low so that the pause tests run in about a second; tests read it from testSystem().env, never hard-code it.
      WEBHOOK_PAUSE_AFTER_FAILURES: '6',
      WEBHOOK_CONSUMER_GROUP: `webhooks-${namespace}`,
      // Test sends and redeliveries wait less than deliveries, two in flight per organization and replica; at most
      // 8 subscriptions per organization; revoked keys' subscriptions are paused within 300 ms (webhooks-capacity
      // and webhooks-scopes tests read these from testSystem().env).
      WEBHOOK_MANUAL_TIMEOUT_MS: '1000',
      WEBHOOK_MANUAL_CONCURRENCY: '2',
      // The contract fuzz and its exploration (`npm run fuzz`) create hundreds of subscriptions in one organization:
      // the cap (a stateful rule no schema states) would refuse most of them, the exploration's seeding first; the
      // e2e webhooks-capacity test proves the cap.
      WEBHOOK_MAX_SUBSCRIPTIONS: ['contract', 'fuzz'].includes(project.name) ? '100000' : '8',
      WEBHOOK_KEY_CHECK_MS: '300',
      // Provider statuses arrive quickly, a held send times out fast, and account answers are not cached, so a
      // test that changes billing at the simulator sees it at once.
      SIM_STATUS_DELAY_MS: '150',
      SIM_HOLD_MS: '3000',
      PROVIDER_TIMEOUT_MS: '1000',
      PROVIDER_ACCOUNT_CACHE_MS: '0',
      // Broadcasts pace 20× faster than in production (a QR-code number's conservative 1 message / 5 s becomes
      // 4 / s), and a crashed replica's lanes are taken over after 1.5 s.
      BROADCAST_PACE_MULTIPLIER: '20',
      BROADCAST_LEASE_MS: '1500',
      // A crashed runner's run is taken over after 2 s; a replica looks for runs recorded elsewhere every 500 ms.
      AGENTS_RUN_LEASE_MS: '2000',
      AGENTS_IDLE_CHECK_MS: '500',
      // Task alarms and window ends armed on the other replica are seen within half a second; a task is overdue
      // 1.5 s after its due time (production: one hour). Tests read them from testSystem().env.
      CRM_SCHEDULER_IDLE_MS: '500',
      MESSAGING_SCHEDULER_IDLE_MS: '500',
      TASK_OVERDUE_AFTER_MS: '1500',
      // The model names the tests' agents use; any other answers 422 (agents-routes reads it from here).
      AGENTS_ALLOWED_MODELS: 'gpt-4o-mini,local-rules-v1',
    },
  });

  project.provide('system', {
    baseUrl: system.baseUrl,
    env: system.env as Record<string, string>,
    tracesDir: runDir,
    logDir,
    metrics: system.metrics,
  });

  return async () => {
    await system.stop();
    await dropNamespace(system.env);
    await release();
  };
}
