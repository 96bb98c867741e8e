import type { Logger } from '@crm/shared';
import type { Connection } from 'mongoose';
import type { CrmDeps } from './domain/deps';
import { createApiKeyRepository } from './repository/api-key.repository';
import { createContactRepository } from './repository/contact.repository';
import { createCustomFieldRepository } from './repository/custom-field.repository';
import { createIdentityRepository } from './repository/identity.repository';
import { createLinksRepository } from './repository/links.repository';
import { createMemberRepository } from './repository/member.repository';
import { createOrganizationRepository } from './repository/organization.repository';
import { createTagRepository } from './repository/tag.repository';

/** Builds the repositories over one connection. Used by the server and by the admin CLI. */
export function createDeps(db: Connection, logger: Logger, eventsWritten: () => void = () => undefined): CrmDeps {
  return {
    organizations: createOrganizationRepository(db),
    apiKeys: createApiKeyRepository(db),
    members: createMemberRepository(db),
    customFields: createCustomFieldRepository(db),
    contacts: createContactRepository(db),
    identities: createIdentityRepository(db),
    links: createLinksRepository(db),
    tags: createTagRepository(db),
    eventsWritten,
    now: () => new Date(),
    logger,
  };
}

/** Collections whose documents carry an embedded outbox. */
export const outboxCollections = (deps: CrmDeps) => [deps.contacts.collection];
