import { createHmac, timingSafeEqual } from 'node:crypto';
import { isWellFormedSecret, secretKeyBytes } from './secrets';

export const USER_AGENT = 'crm-webhooks/1';

/** Five minutes, the window receivers are told to accept (and the Standard Webhooks default). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface SignPayloadInput {
  /** Event id; becomes `webhook-id` and is part of the Standard Webhooks signed content. */
  eventId: string;
  /** The exact string sent as the request body. Signing any other serialisation breaks receivers. */
  body: string;
  /** Unix time in whole seconds. */
  timestampSeconds: number;
  /**
   * Active secrets, newest first. Two entries during a rotation so receivers holding either the
   * new or the old secret can verify; the order is kept in both signature headers.
   */
  secrets: readonly string[];
}

export interface WebhookHeaders {
  'Content-Type': 'application/json';
  'User-Agent': string;
  'X-Webhook-Signature': string;
  'X-Webhook-Timestamp': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  /** Index signature so the object can be passed straight to http.request. */
  [name: string]: string;
}

const hmac = (key: Buffer, content: string, encoding: 'hex' | 'base64'): string =>
  createHmac('sha256', key).update(content, 'utf8').digest(encoding);

/** X-Webhook-Signature scheme: hex HMAC-SHA256 keyed with the FULL secret string (utf8). */
function legacySignature(secret: string, timestamp: string, body: string): string {
  return hmac(Buffer.from(secret, 'utf8'), `${timestamp}.${body}`, 'hex');
}

/** Standard Webhooks scheme: base64 HMAC-SHA256 keyed with the base64-decoded key bytes. */
function standardSignature(secret: string, eventId: string, timestamp: string, body: string): string {
  return hmac(secretKeyBytes(secret), `${eventId}.${timestamp}.${body}`, 'base64');
}

interface SigningKeys {
  /** The key of the X-Webhook-Signature scheme: the whole secret string. */
  legacy: Buffer;
  /** The key of the Standard Webhooks scheme: the decoded bytes after `whsec_`. */
  standard: Buffer;
}

/** Secrets whose keys are kept: more than the subscriptions one replica sends to in a few seconds. */
const MAX_KEYED_SECRETS = 10_000;
const keysOfSecret = new Map<string, SigningKeys>();

/**
 * A secret's two keys, checked and decoded once: every attempt to a busy subscription signs with the same secret
 * (the check and the decoding were a fifth of the signing's CPU in the drain profile, BENCHMARKS.md).
 */
function signingKeys(secret: string): SigningKeys {
  const known = keysOfSecret.get(secret);
  if (known) return known;
  if (!isWellFormedSecret(secret)) throw new Error('Malformed webhook secret');
  const keys = { legacy: Buffer.from(secret, 'utf8'), standard: secretKeyBytes(secret) };
  keysOfSecret.set(secret, keys);
  if (keysOfSecret.size > MAX_KEYED_SECRETS) keysOfSecret.delete(keysOfSecret.keys().next().value as string);
  return keys;
}

function assertTimestamp(timestampSeconds: number): void {
  // A fractional or negative timestamp would be signed as e.g. "1.5" and no receiver would
  // reproduce it from the header reliably.
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error('timestampSeconds must be a non-negative integer (unix seconds)');
  }
}

/**
 * Builds every header of a delivery. Both signature schemes are produced from the same secrets so
 * receivers can use either our own documented scheme or an off-the-shelf Standard Webhooks library.
 */
export function signPayload(input: SignPayloadInput): WebhookHeaders {
  const { eventId, body, timestampSeconds, secrets } = input;
  assertTimestamp(timestampSeconds);
  if (secrets.length === 0) throw new Error('At least one secret is required to sign a webhook');
  // Standard Webhooks uses "." and " " as separators in the signed content / header; an id with
  // whitespace or an empty id would make the header ambiguous.
  if (eventId.length === 0 || /\s/.test(eventId)) throw new Error('eventId must be non-empty without whitespace');
  const keys = secrets.map(signingKeys);

  const timestamp = String(timestampSeconds);
  const legacy = keys.map((key) => `sha256=${hmac(key.legacy, `${timestamp}.${body}`, 'hex')}`).join(',');
  const standard = keys.map((key) => `v1,${hmac(key.standard, `${eventId}.${timestamp}.${body}`, 'base64')}`).join(' ');

  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Webhook-Signature': legacy,
    'X-Webhook-Timestamp': timestamp,
    'webhook-id': eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': standard,
  };
}

export type VerifyFailureReason =
  'malformed_timestamp' | 'timestamp_outside_tolerance' | 'malformed_signature_header' | 'no_matching_signature';

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailureReason };

export interface VerifySignatureInput {
  /** The raw request body exactly as received (not re-serialised JSON). */
  body: string;
  /** Value of X-Webhook-Timestamp (string as received, or a number). */
  timestampSeconds: string | number;
  /** Value of X-Webhook-Signature, e.g. `sha256=<hex>` or `sha256=<hex>,sha256=<hex>`. */
  signatureHeader: string;
  /** The receiver's copy of the secret (whsec_...). */
  secret: string;
  toleranceSeconds?: number;
  /** Injectable clock for tests; defaults to the current time. */
  nowSeconds?: number;
}

const SIGNATURE_ENTRY_RE = /^sha256=([0-9a-f]{64})$/i;

/**
 * Verifies the X-Webhook-Signature scheme the way receivers are documented to: reject stale or
 * future timestamps (replay protection, the timestamp is part of the signed content so it cannot
 * be changed), then compare against every signature in the header in constant time.
 */
export function verifySignature(input: VerifySignatureInput): VerifyResult {
  const { body, signatureHeader, secret } = input;
  const toleranceSeconds = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = input.nowSeconds ?? Math.floor(Date.now() / 1000);

  const timestamp = typeof input.timestampSeconds === 'number' ? String(input.timestampSeconds) : input.timestampSeconds.trim();
  // Digits only: "1e9", "0x10" or " 12" would parse as numbers but were never what we signed.
  if (!/^\d{1,15}$/.test(timestamp)) return { ok: false, reason: 'malformed_timestamp' };
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) {
    return { ok: false, reason: 'timestamp_outside_tolerance' };
  }

  const candidates: Buffer[] = [];
  for (const entry of signatureHeader.split(',')) {
    const match = SIGNATURE_ENTRY_RE.exec(entry.trim());
    // Unknown entries are skipped rather than fatal so a future scheme (e.g. sha512=) can be added
    // to the header without breaking receivers that only understand sha256.
    if (match?.[1] !== undefined) candidates.push(Buffer.from(match[1], 'hex'));
  }
  if (candidates.length === 0) return { ok: false, reason: 'malformed_signature_header' };

  const expected = Buffer.from(legacySignature(secret, timestamp, body), 'hex');
  let matched = false;
  for (const candidate of candidates) {
    // Every candidate is compared (no early exit) so timing does not reveal which one matched.
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, reason: 'no_matching_signature' };
}

export interface VerifyStandardSignatureInput {
  eventId: string;
  body: string;
  timestampSeconds: string | number;
  /** Value of `webhook-signature`, space-separated `v1,<base64>` entries. */
  signatureHeader: string;
  secret: string;
  toleranceSeconds?: number;
  nowSeconds?: number;
}

/**
 * Verifies the Standard Webhooks headers. Receivers would normally use a Standard Webhooks library;
 * this exists so our tests check interoperability and the README snippet has a reference.
 */
export function verifyStandardSignature(input: VerifyStandardSignatureInput): VerifyResult {
  const toleranceSeconds = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  const timestamp = typeof input.timestampSeconds === 'number' ? String(input.timestampSeconds) : input.timestampSeconds.trim();
  if (!/^\d{1,15}$/.test(timestamp)) return { ok: false, reason: 'malformed_timestamp' };
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) {
    return { ok: false, reason: 'timestamp_outside_tolerance' };
  }

  const candidates: Buffer[] = [];
  for (const entry of input.signatureHeader.split(' ')) {
    const [version, signature] = entry.split(',', 2);
    if (version === 'v1' && signature !== undefined && signature.length > 0) candidates.push(Buffer.from(signature, 'base64'));
  }
  if (candidates.length === 0) return { ok: false, reason: 'malformed_signature_header' };

  const expected = Buffer.from(standardSignature(input.secret, input.eventId, timestamp, input.body), 'base64');
  let matched = false;
  for (const candidate of candidates) {
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, reason: 'no_matching_signature' };
}
