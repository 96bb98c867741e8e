import { AccountServiceService } from '@crm/proto/gen/crm/v1/accounts';
import { ContactServiceService } from '@crm/proto/gen/crm/v1/contacts';
import { createAsyncClient } from '@crm/shared';
import type { GatewayConfig } from './config';

export function createClients(config: Pick<GatewayConfig, 'CRM_GRPC_URL' | 'WEBHOOKS_GRPC_URL'>) {
  return {
    contacts: createAsyncClient(ContactServiceService, config.CRM_GRPC_URL, 'crm.v1.ContactService'),
    accounts: createAsyncClient(AccountServiceService, config.CRM_GRPC_URL, 'crm.v1.AccountService'),
  };
}

export type Clients = ReturnType<typeof createClients>;

export function closeClients(clients: Clients): void {
  for (const client of Object.values(clients)) client.close();
}
