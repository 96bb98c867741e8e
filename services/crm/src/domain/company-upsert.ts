import { AppError, derivedId, newId } from '@crm/shared';
import { parseOrThrow, upsertCompanyItem, type UpsertCompanyItem } from '@crm/shared/schemas';
import type { CompanyRecord } from '../repository/company.repository';
import { naturalKeys, requireName, runBatch, upsertOne, type BatchItemResult } from './batch-upsert';
import { applyCompanyUpdate, insertCompany } from './companies';
import { withDefinitionsOnce } from './custom-field-values';
import type { CrmDeps } from './deps';

/** POST /v1/companies/batch/upsert: one result per item, in order. */
export function upsertCompanies(deps: CrmDeps, orgId: string, items: unknown[]): Promise<BatchItemResult[]> {
  const batch = withDefinitionsOnce(deps);
  return runBatch(items, deps.logger, (item) => upsertCompany(batch, orgId, parseOrThrow(upsertCompanyItem, item)));
}

function upsertCompany(deps: CrmDeps, orgId: string, item: UpsertCompanyItem) {
  const { name, ...fields } = item;
  const [firstKey] = naturalKeys(item);
  return upsertOne({
    match: () => matchCompany(deps, orgId, item),
    update: async (match) => {
      const { view, changed } = await applyCompanyUpdate(deps, orgId, match.id, { ...fields, ...(name ? { name } : {}) });
      return { id: view.id, changed };
    },
    create: (attempt) =>
      insertCompany(
        deps,
        orgId,
        { ...fields, name: requireName(name, 'company') },
        attempt === 0 && firstKey ? derivedId('company', `${orgId}|${firstKey.field}|${firstKey.value}`) : newId('company'),
      ),
    lostRace: (error) => error instanceof AppError && error.code === 'DUPLICATE_COMPANY',
  });
}

/** The live company the item names: by external_id (its claim), else by e-mail, else by phone (the oldest holder). */
async function matchCompany(deps: CrmDeps, orgId: string, item: UpsertCompanyItem): Promise<CompanyRecord | null> {
  for (const key of naturalKeys(item)) {
    if (key.field !== 'external_id') {
      const found = await deps.companies.findBy(orgId, key.field, key.value);
      if (found) return found;
      continue;
    }
    const holder = await deps.companyIdentities.holderOf(orgId, 'external_id', key.value);
    const found = holder && (await deps.companies.getById(orgId, holder));
    if (found) return found;
  }
  return null;
}
