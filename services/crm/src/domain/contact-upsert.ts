import { AppError, derivedId, newId } from '@crm/shared';
import { parseOrThrow, upsertContactItem, type UpsertContactItem } from '@crm/shared/schemas';
import type { ContactRecord } from '../repository/contact.repository';
import { naturalKeys, requireName, runBatch, upsertOne, type BatchItemResult } from './batch-upsert';
import { applyContactUpdate, insertContact } from './contacts';
import { withDefinitionsOnce } from './custom-field-values';
import type { CrmDeps } from './deps';

/** POST /v1/contacts/batch/upsert: one result per item, in order. */
export function upsertContacts(deps: CrmDeps, orgId: string, items: unknown[]): Promise<BatchItemResult[]> {
  const batch = withDefinitionsOnce(deps);
  return runBatch(items, deps.logger, (item) => upsertContact(batch, orgId, parseOrThrow(upsertContactItem, item)));
}

function upsertContact(deps: CrmDeps, orgId: string, item: UpsertContactItem) {
  const { source, name, ...fields } = item;
  const [firstKey] = naturalKeys(item);
  return upsertOne({
    match: () => matchContact(deps, orgId, item),
    update: async (match) => {
      const { view, changed } = await applyContactUpdate(deps, orgId, match.id, { ...fields, ...(name ? { name } : {}) });
      return { id: view.id, changed };
    },
    create: (attempt) =>
      insertContact(
        deps,
        orgId,
        { ...fields, name: requireName(name, 'contact'), source },
        attempt === 0 && firstKey ? derivedId('contact', `${orgId}|${firstKey.field}|${firstKey.value}`) : newId('contact'),
      ),
    lostRace: (error) => error instanceof AppError && error.code === 'DUPLICATE_CONTACT',
  });
}

/** The live contact the item names: by external_id, else by e-mail, else by phone (through their unique claims). */
async function matchContact(deps: CrmDeps, orgId: string, item: UpsertContactItem): Promise<ContactRecord | null> {
  for (const key of naturalKeys(item)) {
    const holder = await deps.identities.holderOf(orgId, key.field, key.value);
    const found = holder && (await deps.contacts.getById(orgId, holder));
    if (found) return found;
  }
  return null;
}
