import { WebhookServiceService } from '@crm/proto/gen/webhooks/v1/webhooks';
import { bindService, type GrpcServiceBinding, type Logger } from '@crm/shared';
import type { WebhookDeps } from './domain/deps';
import { webhookHandlers } from './handlers/webhook.handlers';

/** The webhook service's gRPC service, bound to its handlers. */
export function webhooksGrpcServices(deps: WebhookDeps, logger: Logger): GrpcServiceBinding[] {
  return [{ definition: WebhookServiceService, implementation: bindService(webhookHandlers(deps), logger) }];
}
