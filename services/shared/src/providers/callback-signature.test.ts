import { describe, expect, it } from 'vitest';
import { signCallback, verifyCallback } from './callback-signature';

const now = Date.parse('2026-11-25T12:00:00Z');
const at = now / 1000;

describe('provider callback signatures', () => {
  const check = (overrides: Partial<Parameters<typeof verifyCallback>[0]>) =>
    verifyCallback({
      secret: 'secret-1234',
      raw: Buffer.from('{"a":1}'),
      signature: signCallback('secret-1234', at, '{"a":1}'),
      timestamp: String(at),
      toleranceSeconds: 300,
      nowMs: now,
      ...overrides,
    });

  it('verify the timestamp and the exact raw bytes with the shared secret only', () => {
    expect(signCallback('secret-1234', at, '{"a":1}')).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(check({})).toBe('ok');
    expect(check({ raw: Buffer.from('{"a": 1}') })).toBe('invalid_signature');
    expect(check({ secret: 'other-secret' })).toBe('invalid_signature');
    expect(check({ signature: undefined })).toBe('invalid_signature');
    expect(check({ signature: 'sha256=00' })).toBe('invalid_signature');
    // The timestamp is signed: moving a captured callback's timestamp forward breaks the signature.
    expect(check({ timestamp: String(at + 1) })).toBe('invalid_signature');
  });

  it('refuse a callback without a timestamp or outside the replay window', () => {
    expect(check({ timestamp: undefined })).toBe('invalid_signature');
    expect(check({ timestamp: 'yesterday' })).toBe('invalid_signature');
    const old = at - 301;
    expect(check({ timestamp: String(old), signature: signCallback('secret-1234', old, '{"a":1}') })).toBe('stale_timestamp');
    const future = at + 301;
    expect(check({ timestamp: String(future), signature: signCallback('secret-1234', future, '{"a":1}') })).toBe('stale_timestamp');
    const drift = at - 299;
    expect(check({ timestamp: String(drift), signature: signCallback('secret-1234', drift, '{"a":1}') })).toBe('ok');
  });
});
