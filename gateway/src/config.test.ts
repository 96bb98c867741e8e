import { ConfigError } from '@crm/shared/config';
import { describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './config';

/** The internal key of service tokens: required everywhere (grpc/service-identity.ts). */
const IDENTITY = { SERVICE_TOKEN_SECRET: 't'.repeat(40) };

describe('gateway configuration', () => {
  it('refuses production without CURSOR_SECRET, in one line naming it', () => {
    let error: unknown;
    try {
      loadGatewayConfig({ ...IDENTITY, NODE_ENV: 'production' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^Invalid configuration: CURSOR_SECRET: is required with NODE_ENV=production/);
    expect((error as Error).message).not.toContain('\n');
  });

  it('accepts production with a shared CURSOR_SECRET, and a local run without one', () => {
    const secret = 'x'.repeat(48);
    expect(loadGatewayConfig({ ...IDENTITY, NODE_ENV: 'production', CURSOR_SECRET: secret }).CURSOR_SECRET).toBe(secret);
    expect(loadGatewayConfig(IDENTITY).CURSOR_SECRET).toBeUndefined();
  });

  it('refuses to start without the internal key of service tokens, or with a short one', () => {
    expect(() => loadGatewayConfig({})).toThrow(/^Invalid configuration: SERVICE_TOKEN_SECRET: is required/);
    expect(() => loadGatewayConfig({ SERVICE_TOKEN_SECRET: 'short' })).toThrow(/SERVICE_TOKEN_SECRET: /);
  });

  it('names every bad variable on the one line', () => {
    expect(() => loadGatewayConfig({ PORT: 'eighty', CURSOR_SECRET: 'short' })).toThrow(/PORT: .*; CURSOR_SECRET: /);
  });

  it("caps one organization's open requests at half the process's, unless told otherwise", () => {
    expect(loadGatewayConfig(IDENTITY).MAX_INFLIGHT_REQUESTS_PER_ORG).toBe(500);
    expect(loadGatewayConfig({ ...IDENTITY, MAX_INFLIGHT_REQUESTS: '0' }).MAX_INFLIGHT_REQUESTS_PER_ORG).toBe(0);
    expect(loadGatewayConfig({ ...IDENTITY, MAX_INFLIGHT_REQUESTS_PER_ORG: '40' }).MAX_INFLIGHT_REQUESTS_PER_ORG).toBe(40);
  });

  it('lets an organization queue what the rate limits admit of it in a window, unless told otherwise', () => {
    expect(loadGatewayConfig(IDENTITY).TENANT_QUEUE_LIMIT).toBe(300);
    expect(loadGatewayConfig({ ...IDENTITY, RATE_LIMIT_ORG_PER_SECOND: '0', RATE_LIMIT_WINDOW_SECONDS: '2' }).TENANT_QUEUE_LIMIT).toBe(200);
    expect(loadGatewayConfig({ ...IDENTITY, RATE_LIMIT_ORG_PER_SECOND: '0', RATE_LIMIT_PER_SECOND: '0' }).TENANT_QUEUE_LIMIT).toBe(256);
    expect(loadGatewayConfig({ ...IDENTITY, TENANT_QUEUE_LIMIT: '5' }).TENANT_QUEUE_LIMIT).toBe(5);
  });
});
