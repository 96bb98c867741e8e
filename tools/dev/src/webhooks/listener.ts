import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature, type VerifyFailureReason } from '@crm/webhooks/src/delivery/signing';

/** One request the listener got: the event if its signature verified, else why it was refused. */
export type Delivery =
  | { verified: true; event: { id: string; type: string; created_at: string; data: unknown }; attemptAt: Date }
  | { verified: false; reason: VerifyFailureReason | 'not_json'; attemptAt: Date };

export interface Listener {
  url: string;
  close(): Promise<void>;
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

/**
 * A local receiver for webhook deliveries: verifies each one's `X-Webhook-Signature` over the raw body with the
 * subscription's secret (what a receiver must do), answers 200 to a verified delivery and 400 to any other, and
 * reports each. `secret` is read at each request: the subscription that gives it is made after the port is known.
 */
export async function startListener(options: {
  port: number;
  secret: () => string;
  onDelivery(delivery: Delivery): void;
}): Promise<Listener> {
  const server: Server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const attemptAt = new Date();
      const verdict = verifySignature({
        body,
        timestampSeconds: String(request.headers['x-webhook-timestamp'] ?? ''),
        signatureHeader: String(request.headers['x-webhook-signature'] ?? ''),
        secret: options.secret(),
      });
      let delivery: Delivery;
      if (!verdict.ok) delivery = { verified: false, reason: verdict.reason, attemptAt };
      else {
        try {
          delivery = { verified: true, event: JSON.parse(body) as Extract<Delivery, { verified: true }>['event'], attemptAt };
        } catch {
          delivery = { verified: false, reason: 'not_json', attemptAt };
        }
      }
      response.writeHead(delivery.verified ? 200 : 400, { 'content-type': 'text/plain' }).end(delivery.verified ? 'ok' : delivery.reason);
      options.onDelivery(delivery);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
