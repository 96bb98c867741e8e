import { createHmac, timingSafeEqual } from 'node:crypto';

/** `sha256=<hex HMAC-SHA256 of the raw body>`, the signature providers put on their callbacks. */
export const signBody = (secret: string, raw: Buffer | string): string =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

export function verifySignature(secret: string, raw: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(secret, raw));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
