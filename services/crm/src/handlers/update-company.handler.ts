import type { CompanyServiceServer } from '@crm/proto/gen/crm/v1/companies';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { updateCompany } from '../domain/companies';
import { requireId } from './request';

export const updateCompanyHandler: RpcHandler<CompanyServiceServer, 'updateCompany', CrmDeps> = async (deps, request) =>
  updateCompany(deps, request.org_id, requireId('company', request.id), request.body ?? {});
