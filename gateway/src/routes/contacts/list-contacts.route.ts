import { CONTACT_SOURCES } from '@crm/shared/schemas';
import { z } from 'zod';
import { sortedFilterOf } from '../../http/list-query';
import { defineRoute } from '../../http/route';
import { Contact } from '../../schemas/contact.schemas';
import { booleanQuery, isoQuery, pageQuery } from '../../schemas/registry';
import { withoutUnreadable } from './embedded-scopes';

const query = z.object({
  ...pageQuery,
  sort: z.enum(['created_at', 'updated_at', 'name']).default('created_at'),
  order: z.enum(['desc', 'asc']).default('desc'),
  search: z.string().trim().min(1).max(200).optional().describe('case-insensitive match on name, e-mail or phone'),
  tag: z.string().min(1).max(50).optional().describe('exact tag'),
  source: z.enum(CONTACT_SOURCES).optional(),
  has_chatapp: booleanQuery.optional(),
  has_photoapp: booleanQuery.optional(),
  has_socialmsg: booleanQuery.optional(),
  created_after: isoQuery.optional(),
  created_before: isoQuery.optional(),
  updated_after: isoQuery.optional(),
});

export const listContactsRoute = defineRoute({
  operationId: 'listContacts',
  method: 'GET',
  path: '/v1/contacts',
  tag: 'Contacts',
  summary: 'List contacts',
  description: "Filters, sorts and pages through the live contacts. meta.total counts the organization's contacts without filters.",
  scope: 'read:contacts',
  query,
  success: { status: 200, kind: 'list', schema: Contact },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: async ({ query: q, principal, clients, page }) => {
    const response = await clients.contacts.listContacts({ org_id: principal.orgId, page, ...sortedFilterOf(q) });
    return { items: response.items.map((contact) => withoutUnreadable(contact, principal)), page: response.page };
  },
});
