import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, SecretBoxError } from './secret-box';
import { generateSecret } from './secrets';

const key = () => randomBytes(32);
const SECRET = generateSecret();

describe('secret box', () => {
  it('seals into v1:<key id>:<iv>:<ciphertext>:<tag> without the plaintext, and opens it again', () => {
    const box = createSecretBox({ current: { id: 'k1', key: key() }, old: new Map() });
    const sealed = box.seal(SECRET, 'wh_1');
    expect(sealed).toMatch(/^v1:k1:[\w-]{16}:[\w-]+:[\w-]{22}$/);
    expect(sealed).not.toContain(SECRET.slice('whsec_'.length, 20));
    expect(box.open(sealed, 'wh_1')).toBe(SECRET);
    expect(box.isCurrent(sealed)).toBe(true);
  });

  it('uses a fresh IV each time', () => {
    const box = createSecretBox({ current: { id: 'k1', key: key() }, old: new Map() });
    expect(box.seal(SECRET, 'wh_1')).not.toBe(box.seal(SECRET, 'wh_1'));
  });

  it('refuses a tampered ciphertext, tag or IV', () => {
    const box = createSecretBox({ current: { id: 'k1', key: key() }, old: new Map() });
    const [v, id, iv = '', ciphertext = '', tag = ''] = box.seal(SECRET, 'wh_1').split(':');
    const flip = (part: string) => {
      const bytes = Buffer.from(part, 'base64url');
      bytes[0] = (bytes[0] ?? 0) ^ 1;
      return bytes.toString('base64url');
    };
    for (const tampered of [
      [v, id, iv, flip(ciphertext), tag],
      [v, id, iv, ciphertext, flip(tag)],
      [v, id, flip(iv), ciphertext, tag],
    ]) {
      expect(() => box.open(tampered.join(':'), 'wh_1')).toThrow(SecretBoxError);
    }
    expect(() => box.open(`v1:k1:${iv}:${ciphertext}`, 'wh_1')).toThrow(/Malformed/);
  });

  it('refuses a sealed secret moved to another webhook (the id is authenticated)', () => {
    const box = createSecretBox({ current: { id: 'k1', key: key() }, old: new Map() });
    expect(() => box.open(box.seal(SECRET, 'wh_1'), 'wh_2')).toThrow(SecretBoxError);
  });

  it('refuses a value under a wrong key of the same id, and names an unknown key id', () => {
    const sealed = createSecretBox({ current: { id: 'k1', key: key() }, old: new Map() }).seal(SECRET, 'wh_1');
    const other = createSecretBox({ current: { id: 'k1', key: key() }, old: new Map() });
    expect(() => other.open(sealed, 'wh_1')).toThrow(/does not authenticate/);
    const newer = createSecretBox({ current: { id: 'k2', key: key() }, old: new Map() });
    expect(() => newer.open(sealed, 'wh_1')).toThrow(/unknown key id "k1"/);
  });

  it('opens values sealed under an old key after a rotation, and seals new ones under the new key', () => {
    const k1 = key();
    const sealed = createSecretBox({ current: { id: 'k1', key: k1 }, old: new Map() }).seal(SECRET, 'wh_1');
    const rotated = createSecretBox({ current: { id: 'k2', key: key() }, old: new Map([['k1', k1]]) });
    expect(rotated.open(sealed, 'wh_1')).toBe(SECRET);
    expect(rotated.isCurrent(sealed)).toBe(false);
    expect(rotated.seal(SECRET, 'wh_1')).toMatch(/^v1:k2:/);
  });

  it('reads a plaintext row of before encryption as it is', () => {
    const box = createSecretBox({ current: { id: 'k1', key: key() }, old: new Map() });
    expect(box.open(SECRET, 'wh_1')).toBe(SECRET);
    expect(box.isCurrent(SECRET)).toBe(false);
  });

  it('refuses keys of the wrong length and ids with the separator', () => {
    expect(() => createSecretBox({ current: { id: 'k1', key: randomBytes(16) }, old: new Map() })).toThrow(/32 bytes/);
    expect(() => createSecretBox({ current: { id: 'k:1', key: key() }, old: new Map() })).toThrow(/key id/);
  });
});
