import { WebhookServiceService } from '@crm/proto/gen/webhooks/v1/webhooks';
import { bindService, startGrpcServer, type Logger } from '@crm/shared';
import type { WebhookDeps } from './domain/deps';
import { webhookHandlers } from './handlers/webhook.handlers';

export function startWebhooksServer(deps: WebhookDeps, options: { host: string; port: number; logger: Logger }) {
  return startGrpcServer({
    host: options.host,
    port: options.port,
    services: [{ definition: WebhookServiceService, implementation: bindService(webhookHandlers(deps), options.logger) }],
  });
}
