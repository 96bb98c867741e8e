import { createHash } from 'node:crypto';
import { KEY_BYTES, KEY_ID_RE, type SecretKeyring } from './secret-box';

/**
 * The key local runs fall back to when WEBHOOK_SECRETS_KEY is unset. It is public (derived from a fixed phrase), so it
 * protects nothing: it only keeps `npm start` and one-off scripts working. Production refuses to start without a key
 * of its own, and refuses this one.
 */
export const DEV_KEY_ID = 'dev';
export const DEV_KEY = createHash('sha256').update('crm local development webhook secrets key, not secret').digest();

/** A 32-byte key given as base64 (standard or url alphabet, as `openssl rand -base64 32` prints it). */
export function parseKey(value: string, name: string): Buffer {
  const trimmed = value.trim();
  const key = Buffer.from(trimmed, 'base64');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) || key.length !== KEY_BYTES) {
    throw new Error(`${name} must be the base64 of exactly ${String(KEY_BYTES)} bytes (e.g. openssl rand -base64 32)`);
  }
  return key;
}

/** WEBHOOK_SECRETS_OLD_KEYS: "k1:<base64>,k0:<base64>", the keys older rows may be sealed with. */
export function parseOldKeys(value: string): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const separator = entry.indexOf(':');
    const id = entry.slice(0, separator);
    if (separator < 1 || !KEY_ID_RE.test(id)) throw new Error(`WEBHOOK_SECRETS_OLD_KEYS entries are <key id>:<base64 key>`);
    keys.set(id, parseKey(entry.slice(separator + 1), `WEBHOOK_SECRETS_OLD_KEYS key "${id}"`));
  }
  return keys;
}

export interface KeyringSettings {
  key: Buffer | undefined;
  keyId: string;
  oldKeys: ReadonlyMap<string, Buffer>;
}

/** The configured keyring, or the public development key when none is configured (`devKey` says so, to warn). */
export function buildKeyring(settings: KeyringSettings): { keyring: SecretKeyring; devKey: boolean } {
  if (settings.key) return { keyring: { current: { id: settings.keyId, key: settings.key }, old: settings.oldKeys }, devKey: false };
  return { keyring: { current: { id: DEV_KEY_ID, key: DEV_KEY }, old: settings.oldKeys }, devKey: true };
}
