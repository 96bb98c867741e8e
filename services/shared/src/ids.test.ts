import { describe, expect, it } from 'vitest';
import { newId, randomToken } from './ids';

describe('random ids', () => {
  it('draws base62 tokens of the asked length, none repeated, across many refills of the byte pool', () => {
    // 5,000 ids of 22 characters use about 120,000 bytes: some 30 refills of the 4 KB pool.
    const tokens = Array.from({ length: 5_000 }, () => randomToken());
    expect(tokens.every((token) => /^[0-9A-Za-z]{22}$/.test(token))).toBe(true);
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(randomToken(40)).toMatch(/^[0-9A-Za-z]{40}$/);
    expect(newId('request')).toMatch(/^req_[0-9A-Za-z]{22}$/);
  });

  it('uses every character of the alphabet about equally often', () => {
    const counts = new Map<string, number>();
    for (const char of Array.from({ length: 2_000 }, () => randomToken()).join('')) counts.set(char, (counts.get(char) ?? 0) + 1);
    // 44,000 characters over 62: about 710 each; a bias from the modulo would put some near twice others.
    expect(counts.size).toBe(62);
    expect(Math.min(...counts.values())).toBeGreaterThan(500);
    expect(Math.max(...counts.values())).toBeLessThan(950);
  });
});
