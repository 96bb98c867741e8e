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
