import { randomBytes } from 'node:crypto';

/**
 * Webhook signing secrets follow the Standard Webhooks convention: `whsec_` followed by the
 * base64 encoding of the raw key. Receivers using a Standard Webhooks library can use the secret
 * as-is, and the prefix makes a leaked secret easy to recognise (e.g. by secret scanners).
 */
export const SECRET_PREFIX = 'whsec_';

/** 32 random bytes = 256 bits, the HMAC-SHA256 block-size-friendly key length. */
const GENERATED_KEY_BYTES = 32;

/**
 * Standard Webhooks requires keys between 24 and 64 bytes. We generate 32, but accept the whole
 * range so that secrets imported from other Standard Webhooks providers (and the published
 * test vector, which is 24 bytes) stay valid.
 */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

/** Canonical (padded, standard alphabet) base64 only, so one secret has exactly one spelling. */
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Creates a new signing secret: `whsec_` + base64(32 random bytes). */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(GENERATED_KEY_BYTES).toString('base64');
}

/** True when `secret` is `whsec_` + canonical base64 of a 24..64-byte key. */
export function isWellFormedSecret(secret: unknown): secret is string {
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) return false;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (encoded.length === 0 || !BASE64_RE.test(encoded)) return false;
  const keyLength = Buffer.from(encoded, 'base64').length;
  return keyLength >= MIN_KEY_BYTES && keyLength <= MAX_KEY_BYTES;
}

/**
 * The raw key bytes used by the Standard Webhooks scheme (the base64-decoded part after
 * `whsec_`). Throws on a malformed secret: a malformed secret in storage is a programming or
 * data error, and signing with a wrong key would silently break every receiver.
 */
export function secretKeyBytes(secret: string): Buffer {
  if (!isWellFormedSecret(secret)) {
    throw new Error('Malformed webhook secret: expected whsec_ followed by base64 of a 24-64 byte key');
  }
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}
