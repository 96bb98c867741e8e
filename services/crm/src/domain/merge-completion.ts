import { type DueWork, newEvent, notFound, type OutboxEntry, retryOnConflict, type Revised, WriteConflict } from '@crm/shared';
import type { ContactRecord } from '../repository/contact.repository';
import { eventObject, viewContact } from './contact.view';
import { contactChangeEvents } from './contacts';
import type { CrmDeps } from './deps';
import { mergedFields } from './merge-rules';

type Contact = Revised<ContactRecord>;

/** A survivor merged in turn into another contact is followed this many hops; a longer chain is not expected. */
const MAX_HOPS = 5;
/** Survivors keep the ids they absorbed this long (a merge in progress needs only its own). */
const ABSORBED_KEPT = 200;

/**
 * Steps 2–4 of a merge (contact-merge.ts), for the contacts of `ids` claimed into `survivorId`. Every step is
 * idempotent, and a lost race (the survivor changed since read) runs the whole pass again under the conflict
 * policy, so any number of runs of one merge — concurrent requests, a retry, the recovery pass — leave it done once:
 *   2. the claimed contacts' deals, notes and tasks are relinked to the survivor (updateMany; nothing left twice),
 *      and the survivor's notes_count and deals_count recomputed from its linked records, in one transaction;
 *   3. the survivor takes their fields and tags, and records their ids, in one revision-conditional update with
 *      contact.merged (and contact.updated / contact.tag.added for what it gained) in its outbox: only the run
 *      that adds the ids raises them;
 *   4. their e-mail, phone and external_id claims move or are freed, then each is deleted (contact.deleted), conditionally on
 *      its claim, leaving the tombstone that answers 404 with details.merged_into.
 * Records a client wrote to a folded contact meanwhile are relinked once more at the end (and the counts recomputed).
 * A note or deal written to the survivor during a recompute moves its count in its own transaction, which bumps
 * the survivor's revision: one of the two transactions conflicts and runs again, so the counts miss no write.
 */
export function completeMerge(deps: CrmDeps, orgId: string, survivorId: string, ids: string[]): Promise<Contact> {
  return retryOnConflict(async () => {
    // The claimed contacts first: one a concurrent run has folded was folded after that run counted the
    // survivor's records, so the survivor read next includes them (read before, it could answer without them).
    const stored = await deps.contacts.getAny(orgId, ids);
    const { survivor, chain } = await currentSurvivor(deps, orgId, survivorId);
    const claimed = stored.filter((contact) => !contact.deleted_at && chain.includes(contact.merging_into ?? ''));
    if (!survivor) {
      // The survivor was deleted meanwhile: nothing is merged, the claimed contacts are as they were.
      await Promise.all(claimed.map((contact) => deps.contacts.merges.release(orgId, contact.id, contact.merging_into ?? '')));
      throw notFound('contact');
    }
    if (claimed.length === 0) return survivor;
    const from = [...claimed.map((contact) => contact.id), ...chain.filter((id) => id !== survivor.id)];
    const moved = await moveRecords(deps, orgId, from, survivor);
    const absorbed = await absorb(deps, moved, claimed);
    await moveClaims(deps, absorbed, claimed);
    for (const contact of claimed) {
      const at = deps.now();
      await deps.contacts.merges.fold(contact, survivor.id, at, [newEvent(orgId, 'contact.deleted', { object: { id: contact.id } }, at)]);
    }
    return moveRecords(deps, orgId, from, absorbed);
  });
}

/**
 * The live contact a merge into `survivorId` lands in, and the ids on the way (the survivor merged in turn into
 * another contact is followed). A survivor claimed by a merge still in progress is waited for (WriteConflict:
 * that merge may yet be refused and release it); null when it was deleted.
 */
async function currentSurvivor(deps: CrmDeps, orgId: string, survivorId: string): Promise<{ survivor: Contact | null; chain: string[] }> {
  const chain: string[] = [];
  for (let id: string | null | undefined = survivorId; id && chain.length < MAX_HOPS;) {
    chain.push(id);
    const [contact] = await deps.contacts.getAny(orgId, [id]);
    if (!contact || (contact.deleted_at && !contact.merged_into)) return { survivor: null, chain };
    if (contact.merging_into) throw new WriteConflict('contact');
    if (!contact.deleted_at) return { survivor: contact, chain };
    id = contact.merged_into;
  }
  return { survivor: null, chain };
}

/** Step 3: only the contacts the survivor has not absorbed yet change it and raise events. */
async function absorb(deps: CrmDeps, survivor: Contact, claimed: Contact[]): Promise<Contact> {
  const absorbedIds = survivor.absorbed_ids ?? [];
  const fresh = claimed.filter((contact) => !absorbedIds.includes(contact.id));
  if (fresh.length === 0) return survivor;
  const at = deps.now();
  const mergedIds = fresh.map((contact) => contact.id);
  const set = { ...mergedFields(survivor, fresh), absorbed_ids: [...absorbedIds, ...mergedIds].slice(-ABSORBED_KEPT), updated_at: at };
  const next = { ...survivor, ...set };
  return deps.contacts.merges.absorb(survivor, set, await survivorEvents(deps, survivor, next, mergedIds, at));
}

/**
 * contact.merged with the survivor as it now is: its counts, recomputed by step 2, include the folded contacts'
 * notes and deals.
 */
async function survivorEvents(
  deps: CrmDeps,
  before: ContactRecord,
  next: ContactRecord,
  mergedIds: string[],
  at: Date,
): Promise<OutboxEntry[]> {
  const object = await viewContact(deps, next.org_id, next);
  return [
    newEvent(next.org_id, 'contact.merged', { object: eventObject(object), merged_ids: mergedIds }, at),
    ...contactChangeEvents(next.org_id, before, next, object, at),
  ];
}

/**
 * Step 2: deals, notes and tasks of the folded contacts move to the survivor, whose counts are recomputed from
 * its linked records in the same transaction. Answers the survivor as stored then (its revision advanced).
 */
function moveRecords(deps: CrmDeps, orgId: string, from: string[], survivor: Contact): Promise<Contact> {
  return deps.transaction(async (session) => {
    await deps.deals.relinkContacts(orgId, from, survivor.id, deps.now(), session);
    await deps.notes.moveToContact(orgId, from, survivor.id, session);
    await deps.tasks.moveToContact(orgId, from, survivor.id, session);
    const { notes, deals } = await deps.links.countsByContact(orgId, [survivor.id], session);
    const counts = { notes_count: notes.get(survivor.id) ?? 0, deals_count: deals.get(survivor.id) ?? 0 };
    const counted = await deps.contacts.setCounts(orgId, survivor.id, counts, session);
    if (!counted) throw new WriteConflict('contact');
    return counted;
  });
}

/** E-mail, phone and external_id claims: the survivor holds the values it took; the folded contacts' others are free. */
async function moveClaims(deps: CrmDeps, survivor: ContactRecord, folded: ContactRecord[]): Promise<void> {
  // E-mail and phone claims ignore case; an external_id is the integrator's exact value.
  const same = (kind: 'email' | 'phone' | 'external_id', a: string, b: string) =>
    kind === 'external_id' ? a === b : a.toLowerCase() === b.toLowerCase();
  for (const kind of ['email', 'phone', 'external_id'] as const) {
    for (const contact of folded) {
      const value = contact[kind];
      if (!value) continue;
      const kept = survivor[kind];
      if (kept && same(kind, kept, value)) await deps.identities.transfer(survivor.org_id, kind, value, contact.id, survivor.id);
      else await deps.identities.release(survivor.org_id, kind, value, contact.id);
    }
  }
}

/**
 * The recovery pass (a DueScheduler's work, service.ts): a claim older than `staleAfterMs` is a merge that a
 * crash (or a lost connection) interrupted after step 1; it is completed. Safe beside a merge still running:
 * every step is idempotent. A claim that cannot be completed now waits another period.
 */
export function mergeRecovery(deps: CrmDeps, staleAfterMs: number): DueWork {
  return {
    async fireDue(now) {
      const stale = await deps.contacts.merges.stale(new Date(now.getTime() - staleAfterMs), 20);
      const merges = new Map<string, Contact[]>();
      for (const contact of stale) {
        const key = `${contact.org_id}|${contact.merging_into}`;
        merges.set(key, [...(merges.get(key) ?? []), contact]);
      }
      for (const [first, ...rest] of merges.values()) {
        const [orgId, into] = [first!.org_id, first!.merging_into ?? ''];
        const ids = [first!, ...rest].map((contact) => contact.id);
        await completeMerge(deps, orgId, into, ids).catch(async (error: unknown) => {
          deps.logger.warn({ err: error, org_id: orgId, survivor: into, contacts: ids }, 'could not complete an interrupted merge yet');
          await Promise.all(ids.map((id) => deps.contacts.merges.defer(orgId, id, into, now)));
        });
      }
      return stale.length;
    },
    async nextDueAt() {
      const oldest = await deps.contacts.merges.oldestClaimAt();
      return oldest ? new Date(oldest.getTime() + staleAfterMs) : null;
    },
  };
}
