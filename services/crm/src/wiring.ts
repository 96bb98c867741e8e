import type { Logger, Storage } from '@crm/shared';
import type { CrmDeps } from './domain/deps';
import { createApiKeyRepository } from './repository/api-key.repository';
import { createCompanyLinksRepository } from './repository/company-links.repository';
import { createCompanyRepository } from './repository/company.repository';
import { countContactsAtStart } from './repository/contact-counts.repository';
import { createContactRepository } from './repository/contact.repository';
import { createCustomFieldRepository } from './repository/custom-field.repository';
import { createDealLinksRepository } from './repository/deal-links.repository';
import { createDealRepository } from './repository/deal.repository';
import { createFunnelRepository } from './repository/funnel.repository';
import { createIdentityRepository } from './repository/identity.repository';
import { createLinksRepository } from './repository/links.repository';
import { createMemberRepository } from './repository/member.repository';
import { createNoteRepository } from './repository/note.repository';
import { createOrganizationRepository } from './repository/organization.repository';
import { createRecordRefsRepository } from './repository/record-refs.repository';
import { createTagRepository } from './repository/tag.repository';
import { createTaskRepository } from './repository/task.repository';

export interface CrmSettings {
  /** How long after its due time an open task is overdue (TASK_OVERDUE_AFTER_MS). */
  overdueAfterMs?: number;
  /** Wakes this replica's task-alarm scheduler (service.ts). */
  taskAlarmArmed?: (at: Date) => void;
}

/** Builds the repositories over one database. Used by the server and by the admin CLI. */
export function createDeps(db: Storage, logger: Logger, settings: CrmSettings = {}): CrmDeps {
  const links = createLinksRepository(db);
  const contacts = createContactRepository(db);
  countContactsAtStart(db, contacts, links);
  return {
    organizations: createOrganizationRepository(db),
    apiKeys: createApiKeyRepository(db),
    members: createMemberRepository(db),
    customFields: createCustomFieldRepository(db),
    contacts,
    identities: createIdentityRepository(db),
    companyIdentities: createIdentityRepository(db, 'company'),
    links,
    tags: createTagRepository(db),
    deals: createDealRepository(db),
    dealLinks: createDealLinksRepository(db),
    funnels: createFunnelRepository(db),
    companies: createCompanyRepository(db),
    companyLinks: createCompanyLinksRepository(db),
    notes: createNoteRepository(db),
    tasks: createTaskRepository(db, { overdueAfterMs: settings.overdueAfterMs ?? 3_600_000 }),
    refs: createRecordRefsRepository(db),
    transaction: db.transaction,
    taskAlarmArmed: settings.taskAlarmArmed ?? (() => undefined),
    now: () => new Date(),
    logger,
  };
}
