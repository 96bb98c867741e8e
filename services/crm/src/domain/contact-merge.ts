import { AppError, newEvent, type OutboxEntry, retryOnConflict, type Revised } from '@crm/shared';
import { mergeContactsBody, parseOrThrow } from '@crm/shared/schemas';
import type { ClientSession } from 'mongoose';
import type { ContactRecord } from '../repository/contact.repository';
import { eventObject, viewContact, viewContactDetail, type ContactView } from './contact.view';
import { contactChangeEvents, requireContact } from './contacts';
import type { CrmDeps } from './deps';
import { mergedFields } from './merge-rules';

type Contact = Revised<ContactRecord>;

/**
 * POST /v1/contacts/{id}/merge (docs/contact-merge.md): folds the contacts of `contact_ids` into the contact of
 * the path. In ONE transaction: each folded contact is deleted (merged_into the survivor, contact.deleted), the
 * survivor takes their tags and the fields it lacks (merge-rules.ts) with contact.merged (and contact.updated /
 * contact.tag.added for what changed), and their deals, notes, tasks, e-mail and phone claims move to it. Every
 * contact write is conditional on the revision read, so a concurrent write or merge makes the transaction abort and
 * the merge read and plan again. The messaging service moves the conversations when it receives contact.merged.
 *
 * Idempotent: a contact already merged into this one is passed over, so a retried merge answers the survivor and
 * raises nothing; a contact merged into another one is an INVALID_REFERENCE.
 */
export async function mergeContacts(deps: CrmDeps, orgId: string, survivorId: string, rawBody: unknown): Promise<ContactView> {
  const body = parseOrThrow(mergeContactsBody, rawBody);
  if (body.contact_ids.includes(survivorId))
    throw new AppError('VALIDATION_ERROR', 'Invalid request: contact_ids: must not contain the contact merged into.', {
      fields: [{ field: 'contact_ids', issue: 'must not contain the contact merged into' }],
    });
  const merged = await retryOnConflict(async () => {
    const survivor = await requireContact(deps, orgId, survivorId);
    const folded = await contactsToFold(deps, orgId, survivorId, body.contact_ids);
    if (folded.length > 0) await deps.transaction((session) => writeMerge(deps, survivor, folded, session));
    return folded.map((contact) => contact.id);
  });
  // Records written to a folded contact while the transaction ran (a note added at that moment) follow it too.
  if (merged.length > 0) await moveRecords(deps, orgId, merged, survivorId);
  return viewContactDetail(deps, orgId, await requireContact(deps, orgId, survivorId));
}

/** The live contacts to fold, in the order given; those already merged into the survivor are done. */
async function contactsToFold(deps: CrmDeps, orgId: string, survivorId: string, ids: string[]): Promise<Contact[]> {
  const live = new Map((await deps.contacts.getMany(orgId, ids)).map((contact) => [contact.id, contact]));
  const folded: Contact[] = [];
  for (const id of ids) {
    const contact = live.get(id);
    if (contact) {
      folded.push(contact);
      continue;
    }
    const into = await deps.contacts.mergedInto(orgId, id);
    if (into === survivorId) continue;
    throw new AppError(
      'INVALID_REFERENCE',
      into
        ? `contact_ids: ${id} was already merged into ${into}.`
        : `contact_ids: ${id} refers to a contact that does not exist in this organization.`,
      { field: 'contact_ids', id, ...(into ? { merged_into: into } : {}) },
    );
  }
  return folded;
}

async function writeMerge(deps: CrmDeps, survivor: Contact, folded: Contact[], session: ClientSession): Promise<void> {
  const { org_id: orgId } = survivor;
  const at = deps.now();
  const ids = folded.map((contact) => contact.id);
  for (const contact of folded) {
    const deleted = [newEvent(orgId, 'contact.deleted', { object: { id: contact.id } }, at)];
    await deps.contacts.updateAtRevision(
      orgId,
      contact.id,
      contact.rev,
      { deleted_at: at, merged_into: survivor.id, updated_at: at },
      deleted,
      session,
    );
  }
  const set = { ...mergedFields(survivor, folded), updated_at: at };
  const next = { ...survivor, ...set };
  const events = await survivorEvents(deps, survivor, next, ids, at);
  await deps.contacts.updateAtRevision(orgId, survivor.id, survivor.rev, set, events, session);
  await moveRecords(deps, orgId, ids, survivor.id, session);
  await moveClaims(deps, survivor, next, folded, session);
}

/** contact.merged with the survivor as it now is (its counts include the folded contacts' notes and deals). */
async function survivorEvents(
  deps: CrmDeps,
  before: ContactRecord,
  next: ContactRecord,
  mergedIds: string[],
  at: Date,
): Promise<OutboxEntry[]> {
  const all = [next.id, ...mergedIds];
  const [view, notes, dealsCount] = await Promise.all([
    viewContact(deps, next.org_id, next),
    deps.links.notesByContact(next.org_id, all),
    deps.links.countDealsOfAny(next.org_id, all),
  ]);
  const notesCount = [...notes.values()].reduce((sum, n) => sum + n, 0);
  const object = { ...view, notes_count: notesCount, deals_count: dealsCount };
  return [
    newEvent(next.org_id, 'contact.merged', { object: eventObject(object), merged_ids: mergedIds }, at),
    ...contactChangeEvents(next.org_id, before, next, object, at),
  ];
}

/** Deals, notes and tasks of the folded contacts move to the survivor (idempotent: nothing is left to move twice). */
async function moveRecords(deps: CrmDeps, orgId: string, from: string[], to: string, session?: ClientSession): Promise<void> {
  await deps.deals.relinkContacts(orgId, from, to, deps.now(), session);
  await deps.notes.moveToContact(orgId, from, to, session);
  await deps.tasks.moveToContact(orgId, from, to, session);
}

/** E-mail and phone claims: the survivor holds the values it took; the folded contacts' other values are free. */
async function moveClaims(deps: CrmDeps, survivor: ContactRecord, next: ContactRecord, folded: ContactRecord[], session: ClientSession) {
  for (const kind of ['email', 'phone'] as const) {
    for (const contact of folded) {
      const value = contact[kind];
      if (!value) continue;
      if (!survivor[kind] && next[kind] === value)
        await deps.identities.transfer(survivor.org_id, kind, value, contact.id, survivor.id, session);
      else await deps.identities.release(survivor.org_id, kind, value, contact.id, session);
    }
  }
}
