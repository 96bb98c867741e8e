import { describe, expect, it } from 'vitest';
import { signBody, verifySignature } from './signature';

describe('provider callback signatures', () => {
  it('verify the exact raw bytes with the shared secret only', () => {
    const raw = Buffer.from('{"a":1}');
    const header = signBody('secret-1234', raw);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature('secret-1234', raw, header)).toBe(true);
    expect(verifySignature('secret-1234', Buffer.from('{"a": 1}'), header)).toBe(false);
    expect(verifySignature('other-secret', raw, header)).toBe(false);
    expect(verifySignature('secret-1234', raw, undefined)).toBe(false);
    expect(verifySignature('secret-1234', raw, 'sha256=00')).toBe(false);
  });
});
