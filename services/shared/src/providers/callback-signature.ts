import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * How the messaging providers sign their callbacks: shared by the messaging service, which verifies them, and the
 * provider simulator (tools/dev), which signs them. The built-in secret and token are for a laptop only: messaging
 * refuses to start with them under NODE_ENV=production.
 */
export const DEV_CALLBACK_SECRET = 'dev-provider-callback-secret';
export const DEV_PROVIDER_TOKEN = 'dev-provider-token';

/** The header every provider callback carries: the unix seconds it was signed at, part of the signed string. */
export const CALLBACK_TIMESTAMP_HEADER = 'x-callback-timestamp';

/**
 * `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`, the signature providers put on their callbacks. The
 * timestamp is signed so that a captured callback cannot be replayed once it leaves the replay window.
 */
export const signCallback = (secret: string, timestampSeconds: number, raw: Buffer | string): string =>
  `sha256=${createHmac('sha256', secret).update(`${timestampSeconds}.`).update(raw).digest('hex')}`;

export type CallbackCheck = 'ok' | 'invalid_signature' | 'stale_timestamp';

/**
 * A callback is accepted when its timestamp is within `toleranceSeconds` of now (either way: clocks drift) and
 * the signature over that timestamp and the raw bytes matches (constant-time comparison).
 */
export function verifyCallback(options: {
  secret: string;
  raw: Buffer;
  signature: string | undefined;
  timestamp: string | undefined;
  toleranceSeconds: number;
  nowMs?: number;
}): CallbackCheck {
  const { signature, timestamp } = options;
  if (!signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) return 'invalid_signature';
  const seconds = Number(timestamp);
  if (Math.abs((options.nowMs ?? Date.now()) / 1000 - seconds) > options.toleranceSeconds) return 'stale_timestamp';
  const expected = Buffer.from(signCallback(options.secret, seconds, options.raw));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given) ? 'ok' : 'invalid_signature';
}
