import { describe, expect, it } from 'vitest';
import { DEV_CALLBACK_SECRET } from '@crm/shared';
import { loadMessagingConfig } from './config';

/** Every process needs the internal key of service tokens (shared config.ts). */
const IDENTITY = { SERVICE_TOKEN_SECRET: 't'.repeat(40) };

describe('messaging config', () => {
  it('refuses to start in production with the built-in callback secret or provider token', () => {
    expect(() => loadMessagingConfig({ ...IDENTITY, NODE_ENV: 'production', PROVIDER_TOKEN: 'a-real-token' })).toThrow(
      /PROVIDER_CALLBACK_SECRET/,
    );
    expect(() =>
      loadMessagingConfig({
        ...IDENTITY,
        NODE_ENV: 'production',
        PROVIDER_TOKEN: 'a-real-token',
        PROVIDER_CALLBACK_SECRET: DEV_CALLBACK_SECRET,
      }),
    ).toThrow(/PROVIDER_CALLBACK_SECRET/);
    expect(() => loadMessagingConfig({ ...IDENTITY, NODE_ENV: 'production', PROVIDER_CALLBACK_SECRET: 'a-real-callback-secret' })).toThrow(
      /PROVIDER_TOKEN/,
    );
    const config = loadMessagingConfig({
      ...IDENTITY,
      NODE_ENV: 'production',
      PROVIDER_TOKEN: 'a-real-token',
      PROVIDER_CALLBACK_SECRET: 'a-real-callback-secret',
    });
    expect(config.CALLBACK_TOLERANCE_SECONDS).toBe(300);
  });

  it('runs with the development defaults elsewhere', () => {
    expect(loadMessagingConfig(IDENTITY).PROVIDER_CALLBACK_SECRET).toBe(DEV_CALLBACK_SECRET);
  });
});
