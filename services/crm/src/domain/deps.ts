import type { Logger, Storage } from '@crm/shared';
import type { ApiKeyRepository } from '../repository/api-key.repository';
import type { CompanyLinksRepository } from '../repository/company-links.repository';
import type { CompanyRepository } from '../repository/company.repository';
import type { ContactRepository } from '../repository/contact.repository';
import type { CustomFieldRepository } from '../repository/custom-field.repository';
import type { DealLinksRepository } from '../repository/deal-links.repository';
import type { DealRepository } from '../repository/deal.repository';
import type { FunnelRepository } from '../repository/funnel.repository';
import type { IdentityRepository } from '../repository/identity.repository';
import type { LinksRepository } from '../repository/links.repository';
import type { MemberRepository } from '../repository/member.repository';
import type { NoteRepository } from '../repository/note.repository';
import type { OrganizationRepository } from '../repository/organization.repository';
import type { RecordRefsRepository } from '../repository/record-refs.repository';
import type { TagRepository } from '../repository/tag.repository';
import type { TaskRepository } from '../repository/task.repository';

/** Everything a domain function may touch, wired once in wiring.ts. */
export interface CrmDeps {
  organizations: OrganizationRepository;
  apiKeys: ApiKeyRepository;
  members: MemberRepository;
  customFields: CustomFieldRepository;
  contacts: ContactRepository;
  identities: IdentityRepository;
  /** external_id claims of companies. */
  companyIdentities: IdentityRepository;
  links: LinksRepository;
  tags: TagRepository;
  deals: DealRepository;
  dealLinks: DealLinksRepository;
  funnels: FunnelRepository;
  companies: CompanyRepository;
  companyLinks: CompanyLinksRepository;
  notes: NoteRepository;
  tasks: TaskRepository;
  refs: RecordRefsRepository;
  /**
   * Runs `work` in one multi-document transaction (the storage kit's; retried by the driver on transient errors):
   * a write that links or unlinks a contact moves the contact's stored counts in the same transaction.
   */
  transaction: Storage['transaction'];
  /** Tells this replica's task-alarm scheduler that a task falls due at `at`. */
  taskAlarmArmed: (at: Date) => void;
  now: () => Date;
  logger: Logger;
}
