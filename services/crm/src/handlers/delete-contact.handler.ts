import type { ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { deleteContact } from '../domain/contacts';
import { requireId } from './request';

export const deleteContactHandler: RpcHandler<ContactServiceServer, 'deleteContact', CrmDeps> = async (deps, request) => {
  await deleteContact(deps, request.org_id, requireId('contact', request.id));
  return {};
};
