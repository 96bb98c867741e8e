import { describe, expect, it } from 'vitest';
import { createFailedAuthThrottle } from './failed-auth-throttle';

const T0 = 1_700_000_020_000; // 40 s into a minute

describe('failed-auth throttle', () => {
  it('refuses an address after its failures in the window, until the window ends; other addresses are unaffected', () => {
    const throttle = createFailedAuthThrottle({ limit: 3, windowSeconds: 60 });
    for (let i = 0; i < 3; i++) {
      expect(() => throttle.check('10.0.0.1', 'Bearer sk_live_x', T0)).not.toThrow();
      throttle.failed('10.0.0.1', T0);
    }
    let refusal: unknown;
    try {
      throttle.check('10.0.0.1', 'Bearer sk_live_x', T0 + 1_000);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ code: 'RATE_LIMITED', details: { policy: 'auth_failures', limit: 3, retry_after_seconds: 19 } });
    expect(() => throttle.check('10.0.0.2', 'Bearer sk_live_x', T0 + 1_000)).not.toThrow();
    expect(() => throttle.check('10.0.0.1', 'Bearer sk_live_x', T0 + 20_000)).not.toThrow();
  });

  it('still passes a key that authenticated before, from a blocked address', () => {
    const throttle = createFailedAuthThrottle({ limit: 1, windowSeconds: 60 });
    throttle.succeeded('Bearer sk_live_good');
    throttle.failed('10.0.0.1', T0);
    expect(() => throttle.check('10.0.0.1', 'Bearer sk_live_good', T0)).not.toThrow();
    expect(() => throttle.check('10.0.0.1', 'Bearer sk_live_guess', T0)).toThrow(/invalid API key/);
  });

  it('is off with a limit of 0', () => {
    const throttle = createFailedAuthThrottle({ limit: 0, windowSeconds: 60 });
    for (let i = 0; i < 100; i++) throttle.failed('10.0.0.1', T0);
    expect(() => throttle.check('10.0.0.1', 'Bearer sk_live_x', T0)).not.toThrow();
  });
});
