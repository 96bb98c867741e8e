import { AccountServiceService } from '@crm/proto/gen/crm/v1/accounts';
import { AudienceServiceService } from '@crm/proto/gen/crm/v1/audiences';
import { CompanyServiceService } from '@crm/proto/gen/crm/v1/companies';
import { ContactServiceService } from '@crm/proto/gen/crm/v1/contacts';
import { DealServiceService } from '@crm/proto/gen/crm/v1/deals';
import { FunnelServiceService } from '@crm/proto/gen/crm/v1/funnels';
import { NoteServiceService } from '@crm/proto/gen/crm/v1/notes';
import { TaskServiceService } from '@crm/proto/gen/crm/v1/tasks';
import { bindService, type GrpcServiceBinding, type Logger } from '@crm/shared';
import type { CrmDeps } from './domain/deps';
import { accountHandlers } from './handlers/account.handlers';
import { audienceHandlers } from './handlers/audience.handlers';
import { companyHandlers } from './handlers/company.handlers';
import { contactHandlers } from './handlers/contact.handlers';
import { dealHandlers } from './handlers/deal.handlers';
import { funnelHandlers } from './handlers/funnel.handlers';
import { noteHandlers } from './handlers/note.handlers';
import { taskHandlers } from './handlers/task.handlers';

/** The CRM's gRPC services, each generated definition bound to its handlers. */
export function crmGrpcServices(deps: CrmDeps, logger: Logger): GrpcServiceBinding[] {
  return [
    { definition: ContactServiceService, implementation: bindService(contactHandlers(deps), logger) },
    { definition: CompanyServiceService, implementation: bindService(companyHandlers(deps), logger) },
    { definition: NoteServiceService, implementation: bindService(noteHandlers(deps), logger) },
    { definition: TaskServiceService, implementation: bindService(taskHandlers(deps), logger) },
    { definition: DealServiceService, implementation: bindService(dealHandlers(deps), logger) },
    { definition: FunnelServiceService, implementation: bindService(funnelHandlers(deps), logger) },
    { definition: AccountServiceService, implementation: bindService(accountHandlers(deps), logger) },
    { definition: AudienceServiceService, implementation: bindService(audienceHandlers(deps), logger) },
  ];
}
