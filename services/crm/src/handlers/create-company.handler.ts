import type { CompanyServiceServer } from '@crm/proto/gen/crm/v1/companies';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { createCompany } from '../domain/companies';

export const createCompanyHandler: RpcHandler<CompanyServiceServer, 'createCompany', CrmDeps> = async (deps, request) =>
  createCompany(deps, request.org_id, request.body ?? {});
