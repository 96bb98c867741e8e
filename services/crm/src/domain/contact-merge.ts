import { AppError, retryOnConflict, type Revised, WriteConflict } from '@crm/shared';
import { mergeContactsBody, parseOrThrow } from '@crm/shared/schemas';
import type { ContactRecord } from '../repository/contact.repository';
import { viewContactDetail, type ContactView } from './contact.view';
import { requireContact } from './contacts';
import type { CrmDeps } from './deps';
import { completeMerge } from './merge-completion';

/**
 * POST /v1/contacts/{id}/merge (docs/contact-merge.md): folds the contacts of `contact_ids` into the contact of
 * the path. No multi-document transaction: a sequence of single-document conditional writes, each idempotent,
 * so the same merge run again (a retried request, or the recovery pass after a crash) completes what an earlier
 * run began.
 *   1. Each folded contact is claimed (`merging_into` the survivor, revision-conditional): from then on it reads
 *      as merged, and a second merge claiming it is refused.
 *   2–4. merge-completion.ts: records relinked, the survivor updated (contact.merged once), the claimed contacts
 *      deleted.
 */
export async function mergeContacts(deps: CrmDeps, orgId: string, survivorId: string, rawBody: unknown): Promise<ContactView> {
  const body = parseOrThrow(mergeContactsBody, rawBody);
  if (body.contact_ids.includes(survivorId))
    throw new AppError('VALIDATION_ERROR', 'Invalid request: contact_ids: must not contain the contact merged into.', {
      fields: [{ field: 'contact_ids', issue: 'must not contain the contact merged into' }],
    });
  const ids = [...new Set(body.contact_ids)];
  await retryOnConflict(() => claimContacts(deps, orgId, survivorId, ids));
  return viewContactDetail(deps, orgId, await completeMerge(deps, orgId, survivorId, ids));
}

/**
 * Step 1. All or nothing: a refusal releases the claims this attempt made. A contact already claimed into (or
 * merged into) this survivor is passed over: that is this merge run again. A survivor claimed meanwhile by a
 * merge into another contact (two contacts merged into each other at once) releases the claims and reads again:
 * the other merge goes on, and this one then finds its survivor merged (404 with details.merged_into).
 */
async function claimContacts(deps: CrmDeps, orgId: string, survivorId: string, ids: string[]): Promise<void> {
  await requireContact(deps, orgId, survivorId);
  const stored = new Map((await deps.contacts.getAny(orgId, ids)).map((contact) => [contact.id, contact]));
  const claimed: string[] = [];
  try {
    for (const id of ids) if (await claimOne(deps, survivorId, id, stored.get(id))) claimed.push(id);
    if (claimed.length > 0 && !(await deps.contacts.getById(orgId, survivorId))) throw new WriteConflict('contact');
  } catch (error) {
    await Promise.all(claimed.map((id) => deps.contacts.merges.release(orgId, id, survivorId)));
    throw error;
  }
}

/** Claims one contact for the merge; false when it is already this merge's. */
async function claimOne(deps: CrmDeps, survivorId: string, id: string, contact: Revised<ContactRecord> | undefined): Promise<boolean> {
  const into = contact?.merged_into ?? contact?.merging_into ?? null;
  if (into === survivorId) return false;
  if (!contact || contact.deleted_at || into)
    throw new AppError(
      'INVALID_REFERENCE',
      into
        ? `contact_ids: ${id} was already merged into ${into}.`
        : `contact_ids: ${id} refers to a contact that does not exist in this organization.`,
      { field: 'contact_ids', id, ...(into ? { merged_into: into } : {}) },
    );
  await deps.contacts.merges.claim(contact, survivorId, deps.now());
  return true;
}
