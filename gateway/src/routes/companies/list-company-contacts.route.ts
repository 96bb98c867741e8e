import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { Contact } from '../../schemas/contact.schemas';
import { pageQuery } from '../../schemas/registry';
import { companyIdParams } from './params';

export const listCompanyContactsRoute = defineRoute({
  operationId: 'listCompanyContacts',
  method: 'GET',
  path: '/v1/companies/{id}/contacts',
  tag: 'Companies',
  summary: "List a company's contacts",
  description: 'Newest first. meta.total counts the contacts linked to the company.',
  // A sub-collection needs the read scope of the records it returns (catalogue §1).
  scope: 'read:contacts',
  params: companyIdParams,
  query: z.object(pageQuery),
  success: { status: 200, kind: 'list', schema: Contact },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ params, principal, clients, page }) =>
    clients.contacts.listContacts({
      org_id: principal.orgId,
      page,
      sort: 'created_at',
      order: 'desc',
      filter: {},
      company_id: params.id,
    }),
});
