import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSecrets, localSecrets } from './secrets';

describe('local secrets', () => {
  it('are generated once, kept private in the file, and the same for every later start', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-')), 'nested', 'secrets.json');
    const first = localSecrets(file);
    expect(first.CURSOR_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(Buffer.from(first.WEBHOOK_SECRETS_KEY, 'base64')).toHaveLength(32);
    expect(first.SERVICE_TOKEN_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(localSecrets(file)).toEqual(first);
    // The key of before is handed over so old rows are re-sealed; it is not stored.
    expect(first.WEBHOOK_SECRETS_OLD_KEYS).toMatch(/^local:/);
    expect(readFileSync(file, 'utf8')).not.toContain('WEBHOOK_SECRETS_OLD_KEYS');
  });

  // A file written before a key existed (SERVICE_TOKEN_SECRET came later) gets it at the next start.
  it('completes a file that lacks a key without changing the others', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-')), 'secrets.json');
    writeFileSync(file, JSON.stringify({ CURSOR_SECRET: 'c'.repeat(64) }));
    const secrets = localSecrets(file);
    expect(secrets.CURSOR_SECRET).toBe('c'.repeat(64));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      CURSOR_SECRET: 'c'.repeat(64),
      WEBHOOK_SECRETS_KEY: secrets.WEBHOOK_SECRETS_KEY,
      SERVICE_TOKEN_SECRET: secrets.SERVICE_TOKEN_SECRET,
    });
    expect(secrets.SERVICE_TOKEN_SECRET.length).toBeGreaterThanOrEqual(32);
  });

  it('differ per generated system', () => {
    expect(generateSecrets().CURSOR_SECRET).not.toBe(generateSecrets().CURSOR_SECRET);
  });
});
