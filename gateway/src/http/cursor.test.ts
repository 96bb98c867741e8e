import { describe, expect, it } from 'vitest';
import { AppError } from '@crm/shared/core';
import { CURSOR_PATTERN, CursorCodec, listFingerprint } from './cursor';

const codec = new CursorCodec('a-secret-of-at-least-thirty-two-characters', 60);
const fingerprint = listFingerprint('listContacts', 'org_1', { sort: 'name', tag: 'vip' });

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as AppError).code;
  }
  return 'no error';
};

describe('cursors', () => {
  it('have the shape the document states', () => {
    const cursor = codec.encode({ value: 'Ana "the" Souza', id: 'ct_x' }, fingerprint);
    expect(cursor).toMatch(new RegExp(CURSOR_PATTERN));
  });

  it('round-trip a position', () => {
    const cursor = codec.encode({ value: '2026-01-01T00:00:00.000Z', id: 'ct_x' }, fingerprint);
    expect(codec.decode(cursor, fingerprint)).toEqual({ value: '2026-01-01T00:00:00.000Z', id: 'ct_x' });
  });

  it('are tamper-evident', () => {
    const cursor = codec.encode({ value: 1, id: 'ct_x' }, fingerprint);
    const [body, mac] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ p: { value: 1, id: 'ct_y' }, f: fingerprint, e: Date.now() + 1e6 })).toString('base64url');
    expect(codeOf(() => codec.decode(`${forged}.${mac}`, fingerprint))).toBe('INVALID_CURSOR');
    // One character of the MAC changed (to one it is not already).
    const flipped = `${mac?.startsWith('x') ? 'y' : 'x'}${mac?.slice(1)}`;
    expect(codeOf(() => codec.decode(`${body}.${flipped}`, fingerprint))).toBe('INVALID_CURSOR');
    expect(codeOf(() => codec.decode('garbage', fingerprint))).toBe('INVALID_CURSOR');
  });

  it('expire', () => {
    const cursor = codec.encode({ value: 1, id: 'ct_x' }, fingerprint, Date.now() - 61_000);
    expect(codeOf(() => codec.decode(cursor, fingerprint))).toBe('INVALID_CURSOR');
  });

  it('belong to their filters and organization, not to the page size', () => {
    const cursor = codec.encode({ value: 1, id: 'ct_x' }, fingerprint);
    expect(codeOf(() => codec.decode(cursor, listFingerprint('listContacts', 'org_1', { sort: 'name', tag: 'other' })))).toBe(
      'INVALID_CURSOR',
    );
    expect(codeOf(() => codec.decode(cursor, listFingerprint('listContacts', 'org_2', { sort: 'name', tag: 'vip' })))).toBe(
      'INVALID_CURSOR',
    );
    expect(listFingerprint('listContacts', 'org_1', { tag: 'vip', sort: 'name', limit: '5', cursor: 'abc' })).toBe(fingerprint);
  });

  it('from another secret are refused', () => {
    const other = new CursorCodec('another-secret-of-at-least-thirty-two-chars', 60);
    expect(codeOf(() => codec.decode(other.encode({ value: 1, id: 'ct_x' }, fingerprint), fingerprint))).toBe('INVALID_CURSOR');
  });

  it('verify with the previous secret after a rotation, and are signed with the new one', () => {
    const before = new CursorCodec('the-old-secret-of-at-least-thirty-two-chars', 60);
    const rotated = new CursorCodec('the-new-secret-of-at-least-thirty-two-chars', 60, 'the-old-secret-of-at-least-thirty-two-chars');
    const issuedBefore = before.encode({ value: 1, id: 'ct_x' }, fingerprint);
    expect(rotated.decode(issuedBefore, fingerprint)).toEqual({ value: 1, id: 'ct_x' });
    const issuedAfter = rotated.encode({ value: 2, id: 'ct_y' }, fingerprint);
    expect(codeOf(() => before.decode(issuedAfter, fingerprint))).toBe('INVALID_CURSOR');
    const unrelated = new CursorCodec('a-third-secret-of-at-least-thirty-two-chars', 60);
    expect(codeOf(() => rotated.decode(unrelated.encode({ value: 1, id: 'ct_x' }, fingerprint), fingerprint))).toBe('INVALID_CURSOR');
  });
});
