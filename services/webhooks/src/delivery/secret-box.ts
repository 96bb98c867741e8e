import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Webhook signing secrets at rest: AES-256-GCM under a key from the configuration, stored as
 * `v1:<key id>:<iv>:<ciphertext>:<tag>` (base64url parts, a random 12-byte IV per seal). The key id names the key a
 * value was sealed with, so after a key rotation the old key (kept in the keyring) still opens older rows. The
 * webhook id is the additional authenticated data: a sealed secret copied onto another subscription does not open.
 */
export const SEALED_PREFIX = 'v1:';

export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Key ids are part of the stored value, so they must not contain its separator. */
export const KEY_ID_RE = /^[A-Za-z0-9._-]{1,32}$/;

export interface SecretKeyring {
  /** Seals every new value. */
  current: { id: string; key: Buffer };
  /** Old keys by id: they only open values sealed before a key rotation. */
  old: ReadonlyMap<string, Buffer>;
}

export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** Opens a sealed value; a value without the `v1:` prefix was stored before encryption and is returned as-is. */
  open(stored: string, context: string): string;
  /** True when `stored` is sealed under the current key (nothing to migrate). */
  isCurrent(stored: string): boolean;
}

export class SecretBoxError extends Error {}

export function createSecretBox(keyring: SecretKeyring): SecretBox {
  for (const [id, key] of [[keyring.current.id, keyring.current.key] as const, ...keyring.old]) {
    if (!KEY_ID_RE.test(id)) throw new SecretBoxError(`Invalid key id "${id}": 1-32 of A-Z a-z 0-9 . _ -`);
    if (key.length !== KEY_BYTES) throw new SecretBoxError(`Key "${id}" must be ${String(KEY_BYTES)} bytes, not ${String(key.length)}`);
  }
  const keyFor = (id: string): Buffer | undefined => (id === keyring.current.id ? keyring.current.key : keyring.old.get(id));
  const currentPrefix = `${SEALED_PREFIX}${keyring.current.id}:`;

  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyring.current.key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const parts = [iv, ciphertext, cipher.getAuthTag()].map((part) => part.toString('base64url'));
      return `${currentPrefix}${parts.join(':')}`;
    },

    open(stored, context) {
      if (!stored.startsWith(SEALED_PREFIX)) return stored;
      const [, id = '', iv = '', ciphertext = '', tag = '', ...extra] = stored.split(':');
      if (extra.length > 0 || !iv || !tag) throw new SecretBoxError('Malformed sealed secret');
      const key = keyFor(id);
      // Names the key id (not secret) so an operator knows which old key to add back.
      if (!key) throw new SecretBoxError(`Sealed with unknown key id "${id}": add it to WEBHOOK_SECRETS_OLD_KEYS`);
      const ivBytes = Buffer.from(iv, 'base64url');
      const tagBytes = Buffer.from(tag, 'base64url');
      if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new SecretBoxError('Malformed sealed secret');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(tagBytes);
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError(`Sealed secret does not authenticate under key "${id}" (tampered, or another key with that id)`);
      }
    },

    isCurrent: (stored) => stored.startsWith(currentPrefix),
  };
}
