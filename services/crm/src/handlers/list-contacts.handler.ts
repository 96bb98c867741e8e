import type { ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { listContacts, CONTACT_SORTS } from '../domain/contacts';
import { pageInfo, requireId, sortedPageOf } from './request';

export const listContactsHandler: RpcHandler<ContactServiceServer, 'listContacts', CrmDeps> = async (deps, request) => {
  const result = await listContacts(deps, requireId('organization', request.org_id), {
    ...request.filter,
    company_id: request.company_id ? requireId('company', request.company_id) : null,
    ...sortedPageOf(request, CONTACT_SORTS),
  });
  return { items: result.items, page: pageInfo(result) };
};
