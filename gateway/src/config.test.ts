import { ConfigError } from '@crm/shared/config';
import { describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './config';

describe('gateway configuration', () => {
  it('refuses production without CURSOR_SECRET, in one line naming it', () => {
    let error: unknown;
    try {
      loadGatewayConfig({ NODE_ENV: 'production' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^Invalid configuration: CURSOR_SECRET: is required with NODE_ENV=production/);
    expect((error as Error).message).not.toContain('\n');
  });

  it('accepts production with a shared CURSOR_SECRET, and a local run without one', () => {
    const secret = 'x'.repeat(48);
    expect(loadGatewayConfig({ NODE_ENV: 'production', CURSOR_SECRET: secret }).CURSOR_SECRET).toBe(secret);
    expect(loadGatewayConfig({}).CURSOR_SECRET).toBeUndefined();
  });

  it('names every bad variable on the one line', () => {
    expect(() => loadGatewayConfig({ PORT: 'eighty', CURSOR_SECRET: 'short' })).toThrow(/PORT: .*; CURSOR_SECRET: /);
  });

  it('lets an organization queue what the rate limits admit of it in a window, unless told otherwise', () => {
    expect(loadGatewayConfig({}).TENANT_QUEUE_LIMIT).toBe(300);
    expect(loadGatewayConfig({ RATE_LIMIT_ORG_PER_SECOND: '0', RATE_LIMIT_WINDOW_SECONDS: '2' }).TENANT_QUEUE_LIMIT).toBe(200);
    expect(loadGatewayConfig({ RATE_LIMIT_ORG_PER_SECOND: '0', RATE_LIMIT_PER_SECOND: '0' }).TENANT_QUEUE_LIMIT).toBe(256);
    expect(loadGatewayConfig({ TENANT_QUEUE_LIMIT: '5' }).TENANT_QUEUE_LIMIT).toBe(5);
  });
});
