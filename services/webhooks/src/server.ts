import { EventLogServiceService, type EventLogServiceServer } from '@crm/proto/gen/webhooks/v1/events';
import { WebhookServiceService, type WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import { bindHandlers, type GrpcServiceBinding, type Logger } from '@crm/shared';
import type { WebhookDeps } from './domain/deps';
import { createWebhookHandler } from './handlers/create-webhook.handler';
import { deleteWebhookHandler } from './handlers/delete-webhook.handler';
import { getDeliveryHandler } from './handlers/get-delivery.handler';
import { getEventHandler } from './handlers/get-event.handler';
import { getReplayHandler } from './handlers/get-replay.handler';
import { getWebhookHandler } from './handlers/get-webhook.handler';
import { listDeliveriesHandler } from './handlers/list-deliveries.handler';
import { listEventTypesHandler } from './handlers/list-event-types.handler';
import { listEventsHandler } from './handlers/list-events.handler';
import { listWebhooksHandler } from './handlers/list-webhooks.handler';
import { redeliverHandler } from './handlers/redeliver.handler';
import { rotateSecretHandler } from './handlers/rotate-secret.handler';
import { startReplayHandler } from './handlers/start-replay.handler';
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
  // The event log (GET /v1/events) and replays: a service of its own, so the subscription contract stays as it is.
  const eventLog = bindHandlers<EventLogServiceServer, WebhookDeps>(
    deps,
    { listEvents: listEventsHandler, getEvent: getEventHandler, startReplay: startReplayHandler, getReplay: getReplayHandler },
    logger,
  );
  return [
    { definition: WebhookServiceService, implementation: handlers },
    { definition: EventLogServiceService, implementation: eventLog },
  ];
}
