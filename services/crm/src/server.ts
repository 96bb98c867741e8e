import { AccountServiceService } from '@crm/proto/gen/crm/v1/accounts';
import { ContactServiceService } from '@crm/proto/gen/crm/v1/contacts';
import { bindService, startGrpcServer, type Logger } from '@crm/shared';
import type { CrmDeps } from './domain/deps';
import { accountHandlers } from './handlers/account.handlers';
import { contactHandlers } from './handlers/contact.handlers';

export function startCrmServer(deps: CrmDeps, options: { host: string; port: number; logger: Logger }) {
  return startGrpcServer({
    host: options.host,
    port: options.port,
    services: [
      { definition: ContactServiceService, implementation: bindService(contactHandlers(deps), options.logger) },
      { definition: AccountServiceService, implementation: bindService(accountHandlers(deps), options.logger) },
    ],
  });
}
