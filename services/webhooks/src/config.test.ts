import { describe, expect, it } from 'vitest';
import { loadWebhooksConfig } from './config';

describe('webhooks config', () => {
  it('defaults to the spec: 5 attempts on 0/5 min/30 min/2 h/8 h, 10 s timeout, pause after 10', () => {
    const config = loadWebhooksConfig({});
    expect(config.WEBHOOK_RETRY_SCHEDULE_MS).toEqual([0, 300_000, 1_800_000, 7_200_000, 28_800_000]);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(config.WEBHOOK_PAUSE_AFTER_FAILURES).toBe(10);
    expect(config.WEBHOOKS_GRPC_PORT).toBe(50054);
    expect(config.WEBHOOKS_DB_NAME).toBe('webhooks');
    expect(config.WEBHOOK_ALLOWED_HOSTS.hostnames.size).toBe(0);
  });

  it('reads the test settings and fails fast on bad ones', () => {
    const config = loadWebhooksConfig({
      WEBHOOK_RETRY_SCHEDULE_MS: '0,200,400',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
      WEBHOOK_TIMEOUT_MS: '1500',
    });
    expect(config.WEBHOOK_RETRY_SCHEDULE_MS).toEqual([0, 200, 400]);
    expect(config.WEBHOOK_ALLOWED_HOSTS.hostnames.has('localhost')).toBe(true);
    expect(() => loadWebhooksConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '0,-1' })).toThrow(/WEBHOOK_RETRY_SCHEDULE_MS/);
    expect(() => loadWebhooksConfig({ WEBHOOK_ALLOWED_HOSTS: 'not a host!' })).toThrow(/allow-list/);
    expect(() => loadWebhooksConfig({ WEBHOOK_LEASE_MS: '1000', WEBHOOK_TIMEOUT_MS: '5000' })).toThrow(/WEBHOOK_LEASE_MS/);
  });
});
