import { AgentServiceService } from '@crm/proto/gen/agents/v1/agents';
import { BroadcastServiceService } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import { AccountServiceService } from '@crm/proto/gen/crm/v1/accounts';
import { CompanyServiceService } from '@crm/proto/gen/crm/v1/companies';
import { ContactServiceService } from '@crm/proto/gen/crm/v1/contacts';
import { DealServiceService } from '@crm/proto/gen/crm/v1/deals';
import { FunnelServiceService } from '@crm/proto/gen/crm/v1/funnels';
import { NoteServiceService } from '@crm/proto/gen/crm/v1/notes';
import { TaskServiceService } from '@crm/proto/gen/crm/v1/tasks';
import { MessagingServiceService } from '@crm/proto/gen/messaging/v1/messaging';
import { EventLogServiceService } from '@crm/proto/gen/webhooks/v1/events';
import { WebhookServiceService } from '@crm/proto/gen/webhooks/v1/webhooks';
import { callerIdentity, createAsyncClient } from '@crm/shared/grpc';
import type { GatewayConfig } from './config';
import { CircuitBreaker, type BreakerState } from './resilience/circuit-breaker';

type ClientsConfig = Pick<
  GatewayConfig,
  | 'CRM_GRPC_URL'
  | 'WEBHOOKS_GRPC_URL'
  | 'MESSAGING_GRPC_URL'
  | 'AGENTS_GRPC_URL'
  | 'BREAKER_FAILURES'
  | 'BREAKER_WINDOW_MS'
  | 'BREAKER_COOLDOWN_MS'
  | 'SERVICE_TOKEN_SECRET'
  | 'BREAKER_MIN_TIMEOUT_BUDGET_MS'
  | 'REQUEST_TIMEOUT_MS'
>;

/** The gateway's clients; the clients of one backing service (one address) share its circuit breaker. */
export function createClients(config: ClientsConfig, onBreakerChange?: (service: string, state: BreakerState) => void) {
  const breaker = (service: string) =>
    new CircuitBreaker({
      failures: config.BREAKER_FAILURES,
      windowMs: config.BREAKER_WINDOW_MS,
      cooldownMs: config.BREAKER_COOLDOWN_MS,
      minTimeoutBudgetMs: config.BREAKER_MIN_TIMEOUT_BUDGET_MS ?? config.REQUEST_TIMEOUT_MS / 2,
      onStateChange: (state) => onBreakerChange?.(service, state),
    });
  const identity = callerIdentity('gateway', config);
  const crm = breaker('crm');
  const messaging = breaker('messaging');
  const agents = breaker('agents');
  const webhooks = breaker('webhooks');
  return {
    contacts: createAsyncClient(ContactServiceService, config.CRM_GRPC_URL, 'crm.v1.ContactService', { identity, guard: crm }),
    companies: createAsyncClient(CompanyServiceService, config.CRM_GRPC_URL, 'crm.v1.CompanyService', { identity, guard: crm }),
    notes: createAsyncClient(NoteServiceService, config.CRM_GRPC_URL, 'crm.v1.NoteService', { identity, guard: crm }),
    tasks: createAsyncClient(TaskServiceService, config.CRM_GRPC_URL, 'crm.v1.TaskService', { identity, guard: crm }),
    deals: createAsyncClient(DealServiceService, config.CRM_GRPC_URL, 'crm.v1.DealService', { identity, guard: crm }),
    funnels: createAsyncClient(FunnelServiceService, config.CRM_GRPC_URL, 'crm.v1.FunnelService', { identity, guard: crm }),
    accounts: createAsyncClient(AccountServiceService, config.CRM_GRPC_URL, 'crm.v1.AccountService', { identity, guard: crm }),
    messaging: createAsyncClient(MessagingServiceService, config.MESSAGING_GRPC_URL, 'messaging.v1.MessagingService', {
      identity,
      guard: messaging,
    }),
    broadcasts: createAsyncClient(BroadcastServiceService, config.MESSAGING_GRPC_URL, 'broadcasts.v1.BroadcastService', {
      identity,
      guard: messaging,
    }),
    agents: createAsyncClient(AgentServiceService, config.AGENTS_GRPC_URL, 'agents.v1.AgentService', { identity, guard: agents }),
    webhooks: createAsyncClient(WebhookServiceService, config.WEBHOOKS_GRPC_URL, 'webhooks.v1.WebhookService', {
      identity,
      guard: webhooks,
    }),
    events: createAsyncClient(EventLogServiceService, config.WEBHOOKS_GRPC_URL, 'webhooks.v1.EventLogService', {
      identity,
      guard: webhooks,
    }),
  };
}

export type Clients = ReturnType<typeof createClients>;

export function closeClients(clients: Clients): void {
  for (const client of Object.values(clients)) client.close();
}
