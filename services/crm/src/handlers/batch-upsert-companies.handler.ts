import type { CompanyServiceServer } from '@crm/proto/gen/crm/v1/companies';
import type { RpcHandler } from '@crm/shared';
import { upsertCompanies } from '../domain/company-upsert';
import type { CrmDeps } from '../domain/deps';

export const batchUpsertCompaniesHandler: RpcHandler<CompanyServiceServer, 'batchUpsertCompanies', CrmDeps> = async (deps, request) => ({
  items: await upsertCompanies(deps, request.org_id, request.items),
});
