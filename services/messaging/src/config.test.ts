import { describe, expect, it } from 'vitest';
import { DEV_CALLBACK_SECRET } from '@crm/shared';
import { loadMessagingConfig } from './config';

describe('messaging config', () => {
  it('refuses to start in production with the built-in callback secret or provider token', () => {
    expect(() => loadMessagingConfig({ NODE_ENV: 'production', PROVIDER_TOKEN: 'a-real-token' })).toThrow(/PROVIDER_CALLBACK_SECRET/);
    expect(() =>
      loadMessagingConfig({ NODE_ENV: 'production', PROVIDER_TOKEN: 'a-real-token', PROVIDER_CALLBACK_SECRET: DEV_CALLBACK_SECRET }),
    ).toThrow(/PROVIDER_CALLBACK_SECRET/);
    expect(() => loadMessagingConfig({ NODE_ENV: 'production', PROVIDER_CALLBACK_SECRET: 'a-real-callback-secret' })).toThrow(
      /PROVIDER_TOKEN/,
    );
    const config = loadMessagingConfig({
      NODE_ENV: 'production',
      PROVIDER_TOKEN: 'a-real-token',
      PROVIDER_CALLBACK_SECRET: 'a-real-callback-secret',
    });
    expect(config.CALLBACK_TOLERANCE_SECONDS).toBe(300);
  });

  it('runs with the development defaults elsewhere', () => {
    expect(loadMessagingConfig({}).PROVIDER_CALLBACK_SECRET).toBe(DEV_CALLBACK_SECRET);
  });
});
