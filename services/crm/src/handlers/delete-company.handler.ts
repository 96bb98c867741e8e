import type { CompanyServiceServer } from '@crm/proto/gen/crm/v1/companies';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { deleteCompany } from '../domain/companies';
import { requireId } from './request';

export const deleteCompanyHandler: RpcHandler<CompanyServiceServer, 'deleteCompany', CrmDeps> = async (deps, request) => {
  await deleteCompany(deps, request.org_id, requireId('company', request.id));
  return {};
};
