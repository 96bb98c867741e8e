import type { Logger } from '@crm/shared';
import type { ApiKeyRepository } from '../repository/api-key.repository';
import type { ContactRepository } from '../repository/contact.repository';
import type { CustomFieldRepository } from '../repository/custom-field.repository';
import type { IdentityRepository } from '../repository/identity.repository';
import type { LinksRepository } from '../repository/links.repository';
import type { MemberRepository } from '../repository/member.repository';
import type { OrganizationRepository } from '../repository/organization.repository';
import type { TagRepository } from '../repository/tag.repository';

/** Everything a domain function may touch, wired once in main.ts. */
export interface CrmDeps {
  organizations: OrganizationRepository;
  apiKeys: ApiKeyRepository;
  members: MemberRepository;
  customFields: CustomFieldRepository;
  contacts: ContactRepository;
  identities: IdentityRepository;
  links: LinksRepository;
  tags: TagRepository;
  /** Wakes the outbox relay after a write that carries events. */
  eventsWritten: () => void;
  now: () => Date;
  logger: Logger;
}
