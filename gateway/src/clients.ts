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
import { WebhookServiceService } from '@crm/proto/gen/webhooks/v1/webhooks';
import { createAsyncClient } from '@crm/shared';
import type { GatewayConfig } from './config';

export function createClients(
  config: Pick<GatewayConfig, 'CRM_GRPC_URL' | 'WEBHOOKS_GRPC_URL' | 'MESSAGING_GRPC_URL' | 'AGENTS_GRPC_URL'>,
) {
  return {
    contacts: createAsyncClient(ContactServiceService, config.CRM_GRPC_URL, 'crm.v1.ContactService'),
    companies: createAsyncClient(CompanyServiceService, config.CRM_GRPC_URL, 'crm.v1.CompanyService'),
    notes: createAsyncClient(NoteServiceService, config.CRM_GRPC_URL, 'crm.v1.NoteService'),
    tasks: createAsyncClient(TaskServiceService, config.CRM_GRPC_URL, 'crm.v1.TaskService'),
    deals: createAsyncClient(DealServiceService, config.CRM_GRPC_URL, 'crm.v1.DealService'),
    funnels: createAsyncClient(FunnelServiceService, config.CRM_GRPC_URL, 'crm.v1.FunnelService'),
    accounts: createAsyncClient(AccountServiceService, config.CRM_GRPC_URL, 'crm.v1.AccountService'),
    messaging: createAsyncClient(MessagingServiceService, config.MESSAGING_GRPC_URL, 'messaging.v1.MessagingService'),
    broadcasts: createAsyncClient(BroadcastServiceService, config.MESSAGING_GRPC_URL, 'broadcasts.v1.BroadcastService'),
    agents: createAsyncClient(AgentServiceService, config.AGENTS_GRPC_URL, 'agents.v1.AgentService'),
    webhooks: createAsyncClient(WebhookServiceService, config.WEBHOOKS_GRPC_URL, 'webhooks.v1.WebhookService'),
  };
}

export type Clients = ReturnType<typeof createClients>;

export function closeClients(clients: Clients): void {
  for (const client of Object.values(clients)) client.close();
}
