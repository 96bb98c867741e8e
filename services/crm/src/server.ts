import { AccountServiceService } from '@crm/proto/gen/crm/v1/accounts';
import { AudienceServiceService } from '@crm/proto/gen/crm/v1/audiences';
import { CompanyServiceService } from '@crm/proto/gen/crm/v1/companies';
import { ContactServiceService } from '@crm/proto/gen/crm/v1/contacts';
import { DealServiceService } from '@crm/proto/gen/crm/v1/deals';
import { FunnelServiceService } from '@crm/proto/gen/crm/v1/funnels';
import { NoteServiceService } from '@crm/proto/gen/crm/v1/notes';
import { TaskServiceService } from '@crm/proto/gen/crm/v1/tasks';
import { bindService, startGrpcServer, type Logger } from '@crm/shared';
import type { CrmDeps } from './domain/deps';
import { accountHandlers } from './handlers/account.handlers';
import { audienceHandlers } from './handlers/audience.handlers';
import { companyHandlers } from './handlers/company.handlers';
import { contactHandlers } from './handlers/contact.handlers';
import { dealHandlers } from './handlers/deal.handlers';
import { funnelHandlers } from './handlers/funnel.handlers';
import { noteHandlers } from './handlers/note.handlers';
import { taskHandlers } from './handlers/task.handlers';

export function startCrmServer(deps: CrmDeps, options: { host: string; port: number; logger: Logger }) {
  return startGrpcServer({
    host: options.host,
    port: options.port,
    services: [
      { definition: ContactServiceService, implementation: bindService(contactHandlers(deps), options.logger) },
      { definition: CompanyServiceService, implementation: bindService(companyHandlers(deps), options.logger) },
      { definition: NoteServiceService, implementation: bindService(noteHandlers(deps), options.logger) },
      { definition: TaskServiceService, implementation: bindService(taskHandlers(deps), options.logger) },
      { definition: DealServiceService, implementation: bindService(dealHandlers(deps), options.logger) },
      { definition: FunnelServiceService, implementation: bindService(funnelHandlers(deps), options.logger) },
      { definition: AccountServiceService, implementation: bindService(accountHandlers(deps), options.logger) },
      { definition: AudienceServiceService, implementation: bindService(audienceHandlers(deps), options.logger) },
    ],
  });
}
