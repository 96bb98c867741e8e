import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { ReceivedRequest } from './webhook-receiver';

/** Whether a received delivery verifies under the Standard Webhooks scheme (webhook-* headers) with `secret`. */
export function standardVerifies(request: ReceivedRequest, secret: string): boolean {
  try {
    new StandardWebhook(secret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

/** The receiver's own check of X-Webhook-Signature: HMAC-SHA256(secret, "<timestamp>.<raw body>"), any listed value. */
export function xSignatureMatches(request: ReceivedRequest, secret: string): boolean {
  const timestamp = String(request.headers['x-webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest();
  return String(request.headers['x-webhook-signature'])
    .split(',')
    .map((entry) => Buffer.from(entry.trim().replace(/^sha256=/, ''), 'hex'))
    .some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected));
}
