import { WebhookServiceService, type WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import { bindHandlers, type GrpcServiceBinding, type Logger } from '@crm/shared';
import type { WebhookDeps } from './domain/deps';
import { createWebhookHandler } from './handlers/create-webhook.handler';
import { deleteWebhookHandler } from './handlers/delete-webhook.handler';
import { getDeliveryHandler } from './handlers/get-delivery.handler';
import { getWebhookHandler } from './handlers/get-webhook.handler';
import { listDeliveriesHandler } from './handlers/list-deliveries.handler';
import { listEventTypesHandler } from './handlers/list-event-types.handler';
import { listWebhooksHandler } from './handlers/list-webhooks.handler';
import { redeliverHandler } from './handlers/redeliver.handler';
import { rotateSecretHandler } from './handlers/rotate-secret.handler';
import { testWebhookHandler } from './handlers/test-webhook.handler';
import { updateWebhookHandler } from './handlers/update-webhook.handler';

/** The webhook service's gRPC service with its handlers, one RPC per file in handlers/. */
export function webhooksGrpcServices(deps: WebhookDeps, logger: Logger): GrpcServiceBinding[] {
  const handlers = bindHandlers<WebhookServiceServer, WebhookDeps>(
    deps,
    {
      listWebhooks: listWebhooksHandler,
      createWebhook: createWebhookHandler,
      listEventTypes: listEventTypesHandler,
      getWebhook: getWebhookHandler,
      updateWebhook: updateWebhookHandler,
      deleteWebhook: deleteWebhookHandler,
      listDeliveries: listDeliveriesHandler,
      rotateSecret: rotateSecretHandler,
      testWebhook: testWebhookHandler,
      getDelivery: getDeliveryHandler,
      redeliver: redeliverHandler,
    },
    logger,
  );
  return [{ definition: WebhookServiceService, implementation: handlers }];
}
