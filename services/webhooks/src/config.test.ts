import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { loadWebhooksConfig } from './config';
import { DEV_KEY } from './delivery/secret-keyring';

/** The internal key of service tokens: every service requires it (grpc/service-identity.ts). */
const IDENTITY = { SERVICE_TOKEN_SECRET: 't'.repeat(40) };

describe('webhooks config', () => {
  it('defaults to the spec: 5 attempts on 0/5 min/30 min/2 h/8 h, 10 s timeout, pause after 10', () => {
    const config = loadWebhooksConfig(IDENTITY);
    expect(config.WEBHOOK_RETRY_SCHEDULE_MS).toEqual([0, 300_000, 1_800_000, 7_200_000, 28_800_000]);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(config.WEBHOOK_PAUSE_AFTER_FAILURES).toBe(10);
    expect(config.WEBHOOKS_GRPC_PORT).toBe(50054);
    expect(config.WEBHOOKS_DB_NAME).toBe('webhooks');
    expect(config.WEBHOOK_ALLOWED_HOSTS.hostnames.size).toBe(0);
  });

  it('reads the test settings and fails fast on bad ones', () => {
    const config = loadWebhooksConfig({
      ...IDENTITY,
      WEBHOOK_RETRY_SCHEDULE_MS: '0,200,400',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
      WEBHOOK_TIMEOUT_MS: '1500',
    });
    expect(config.WEBHOOK_RETRY_SCHEDULE_MS).toEqual([0, 200, 400]);
    expect(config.WEBHOOK_ALLOWED_HOSTS.hostnames.has('localhost')).toBe(true);
    expect(() => loadWebhooksConfig({ ...IDENTITY, WEBHOOK_RETRY_SCHEDULE_MS: '0,-1' })).toThrow(/WEBHOOK_RETRY_SCHEDULE_MS/);
    expect(() => loadWebhooksConfig({ ...IDENTITY, WEBHOOK_ALLOWED_HOSTS: 'not a host!' })).toThrow(/allow-list/);
    expect(() => loadWebhooksConfig({ ...IDENTITY, WEBHOOK_LEASE_MS: '1000', WEBHOOK_TIMEOUT_MS: '5000' })).toThrow(/WEBHOOK_LEASE_MS/);
  });

  it('reads the secrets key, its id and the old keys; production refuses to start without a key or with the development key', () => {
    const key = randomBytes(32);
    const old = randomBytes(32);
    const config = loadWebhooksConfig({
      ...IDENTITY,
      NODE_ENV: 'production',
      WEBHOOK_SECRETS_KEY: key.toString('base64'),
      WEBHOOK_SECRETS_KEY_ID: 'k2',
      WEBHOOK_SECRETS_OLD_KEYS: `k1:${old.toString('base64')}`,
    });
    expect(config.WEBHOOK_SECRETS_KEY?.equals(key)).toBe(true);
    expect(config.WEBHOOK_SECRETS_KEY_ID).toBe('k2');
    expect(config.WEBHOOK_SECRETS_OLD_KEYS.get('k1')?.equals(old)).toBe(true);
    expect(loadWebhooksConfig(IDENTITY).WEBHOOK_SECRETS_KEY).toBeUndefined();

    expect(() => loadWebhooksConfig({ ...IDENTITY, NODE_ENV: 'production' })).toThrow(/WEBHOOK_SECRETS_KEY: is required/);
    expect(() => loadWebhooksConfig({ ...IDENTITY, NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: DEV_KEY.toString('base64') })).toThrow(
      /development key/,
    );
    expect(() => loadWebhooksConfig({ ...IDENTITY, WEBHOOK_SECRETS_KEY: randomBytes(16).toString('base64') })).toThrow(/exactly 32 bytes/);
    expect(() => loadWebhooksConfig({ ...IDENTITY, WEBHOOK_SECRETS_OLD_KEYS: 'no-separator' })).toThrow(/OLD_KEYS/);
    expect(() => loadWebhooksConfig({ ...IDENTITY, WEBHOOK_SECRETS_KEY_ID: 'a:b' })).toThrow(/WEBHOOK_SECRETS_KEY_ID/);
  });
});
