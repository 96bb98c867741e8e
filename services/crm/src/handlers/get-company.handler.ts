import type { CompanyServiceServer } from '@crm/proto/gen/crm/v1/companies';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { getCompany } from '../domain/companies';
import { requireId } from './request';

export const getCompanyHandler: RpcHandler<CompanyServiceServer, 'getCompany', CrmDeps> = async (deps, request) =>
  getCompany(deps, request.org_id, requireId('company', request.id));
