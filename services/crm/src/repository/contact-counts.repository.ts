import { oncePerVersion, type Storage, withRevisionBump } from '@crm/shared';
import type { mongo } from 'mongoose';
import type { LinksRepository } from './links.repository';

/** Contacts counted in one transaction of the start-up pass. */
const PAGE = 100;

/** Names this pass: a later change of what the counts mean would count again under a new name. */
const VERSION = 'counts-1';

/** A contact stored before its counts were (ContactRecord.notes_count). */
const UNCOUNTED = { $or: [{ notes_count: { $exists: false } }, { deals_count: { $exists: false } }] };

/**
 * Registers, with the start-up passes of the storage kit (derived-fields.ts, run in the background of a start),
 * the pass that stores notes_count and deals_count on every contact stored before they were. Each page of
 * contacts is found, counted and written in one transaction, and only where the counts are still absent: a
 * note or deal written meanwhile to one of them bumps that contact's revision in its own transaction
 * (adjustCounters), so one of the two transactions conflicts and runs again, and no count misses a write.
 */
export function countContactsAtStart(storage: Storage, links: Pick<LinksRepository, 'countsByContact'>): void {
  const contacts = storage.connection.collection('contacts');
  const passes = storage.connection.collection('derived_field_passes');
  storage.derived.add({
    collection: contacts,
    refreshDerived: () => oncePerVersion(passes, `contacts:${VERSION}`, () => countAll(storage, contacts, links)),
  });
}

/** The pass: every uncounted contact, page by page in `_id` order; answers how many it counted. */
export async function countAll(
  storage: Storage,
  contacts: mongo.Collection,
  links: Pick<LinksRepository, 'countsByContact'>,
): Promise<number> {
  let counted = 0;
  let after: string | undefined;
  for (;;) {
    const page = await storage.transaction(async (session) => {
      const filter = after === undefined ? UNCOUNTED : { $and: [{ _id: { $gt: after } }, UNCOUNTED] };
      const found = await contacts
        .find(filter as mongo.Filter<mongo.Document>, { projection: { org_id: 1 }, sort: { _id: 1 }, limit: PAGE, session })
        .toArray();
      let written = 0;
      for (const [orgId, ids] of byOrganization(found)) {
        const { notes, deals } = await links.countsByContact(orgId, ids, session);
        const writes = ids.map((id) => ({
          updateOne: {
            filter: { $and: [{ _id: id }, UNCOUNTED] } as mongo.Filter<mongo.Document>,
            update: withRevisionBump({ $set: { notes_count: notes.get(id) ?? 0, deals_count: deals.get(id) ?? 0 } }),
          },
        }));
        written += (await contacts.bulkWrite(writes, { ordered: false, session })).modifiedCount;
      }
      return { written, last: found.at(-1)?._id, full: found.length === PAGE };
    });
    counted += page.written;
    if (!page.full) return counted;
    after = String(page.last);
  }
}

function byOrganization(docs: mongo.Document[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const doc of docs) {
    const orgId = String(doc.org_id);
    groups.set(orgId, [...(groups.get(orgId) ?? []), String(doc._id)]);
  }
  return groups;
}
