import type { ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import type { AsyncService } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import {
  addContactTags,
  createContact,
  deleteContact,
  getContact,
  listContacts,
  removeContactTag,
  updateContact,
} from '../domain/contacts';
import type { ContactSort } from '../repository/contact.repository';
import { resolveChannelContact } from '../domain/channel-contacts';
import { orderOf, pageOf, pageInfo, requireId } from './request';

const SORTS: readonly ContactSort[] = ['created_at', 'updated_at', 'name'];

/** gRPC ContactService: maps messages to domain calls and back; the rules live in domain/contacts.ts. */
export function contactHandlers(deps: CrmDeps): AsyncService<ContactServiceServer> {
  return {
    listContacts: async (request) => {
      const { limit, after } = pageOf(request.page);
      const sort = SORTS.find((candidate) => candidate === request.sort) ?? 'created_at';
      const result = await listContacts(deps, requireId('organization', request.org_id), {
        ...request.filter,
        company_id: request.company_id ? requireId('company', request.company_id) : null,
        sort,
        order: orderOf(request.order),
        limit,
        after,
      });
      return { items: result.items, page: pageInfo(result) };
    },
    getContact: async (request) => getContact(deps, request.org_id, requireId('contact', request.id)),
    createContact: async (request) => createContact(deps, request.org_id, request.body ?? {}),
    updateContact: async (request) => updateContact(deps, request.org_id, requireId('contact', request.id), request.body ?? {}),
    deleteContact: async (request) => {
      await deleteContact(deps, request.org_id, requireId('contact', request.id));
      return {};
    },
    addContactTags: async (request) => addContactTags(deps, request.org_id, requireId('contact', request.id), { tags: request.tags }),
    resolveChannelContact: async (request) =>
      resolveChannelContact(deps, requireId('organization', request.org_id), {
        channel: request.channel,
        identifier: request.identifier,
        name: request.name,
        phone: request.phone,
      }),
    removeContactTag: async (request) => {
      await removeContactTag(deps, request.org_id, requireId('contact', request.id), request.tags[0] ?? '');
      return {};
    },
  };
}
