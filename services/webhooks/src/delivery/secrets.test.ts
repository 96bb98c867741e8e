import { describe, it, expect } from 'vitest';
import { generateSecret, isWellFormedSecret, secretKeyBytes } from './secrets';

describe('generateSecret', () => {
  it('produces whsec_ + base64 of 32 random bytes', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKeyBytes(secret)).toHaveLength(32);
    expect(isWellFormedSecret(secret)).toBe(true);
  });

  it('is random', () => {
    const secrets = new Set(Array.from({ length: 50 }, () => generateSecret()));
    expect(secrets.size).toBe(50);
  });
});

describe('isWellFormedSecret', () => {
  it('accepts the 24-byte published Standard Webhooks test secret', () => {
    expect(isWellFormedSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe(true);
  });

  it.each([
    ['missing prefix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['empty key', 'whsec_'],
    ['not base64', 'whsec_not*base64!!'],
    ['url-safe alphabet', 'whsec_' + Buffer.alloc(32, 0xfb).toString('base64url')],
    ['missing padding', 'whsec_' + Buffer.alloc(32, 1).toString('base64').replace(/=+$/, '')],
    ['key too short (16 bytes)', 'whsec_' + Buffer.alloc(16, 1).toString('base64')],
    ['key too long (65 bytes)', 'whsec_' + Buffer.alloc(65, 1).toString('base64')],
    ['non-string', 42],
  ])('rejects %s', (_label, value) => {
    expect(isWellFormedSecret(value)).toBe(false);
  });

  it('secretKeyBytes throws on a malformed secret', () => {
    expect(() => secretKeyBytes('whsec_nope')).toThrow(/Malformed/);
  });
});
