import { type KeysetPosition, oncePerVersion, type Storage, withRevisionBump } from '@crm/shared';
import type { mongo } from 'mongoose';
import { type ContactRepository, UNCOUNTED } from './contact.repository';
import type { LinksRepository } from './links.repository';

/** Contacts counted in one transaction of the start-up pass. */
const PAGE = 100;

/** Names this pass: a later change of what the counts mean would count again under a new name. */
const VERSION = 'counts-1';

type Contacts = Pick<ContactRepository, 'collection' | 'uncountedPage'>;
type Links = Pick<LinksRepository, 'countsByContact'>;

/**
 * Registers, with the start-up passes of the storage kit (derived-fields.ts, run in the background of a start),
 * the pass that stores notes_count and deals_count on every contact stored before they were. Each page of such
 * contacts is counted and written in one transaction, only where the counts are still absent: a note or deal
 * written meanwhile to one of them bumps that contact's revision in its own transaction (adjustCounters), so one
 * of the two transactions conflicts and runs again, and no count misses a write.
 */
export function countContactsAtStart(storage: Storage, contacts: Contacts, links: Links): void {
  const passes = storage.connection.collection('derived_field_passes');
  storage.derived.add({
    collection: contacts.collection,
    refreshDerived: () => oncePerVersion(passes, `contacts:${VERSION}`, () => countAll(storage, contacts, links)),
  });
}

/** The pass: every uncounted contact, page by page in `_id` order; answers how many it counted. */
export async function countAll(storage: Storage, contacts: Contacts, links: Links): Promise<number> {
  let counted = 0;
  let after: KeysetPosition | undefined;
  do {
    const page = await contacts.uncountedPage(after, PAGE);
    if (page.items.length > 0) counted += await countPage(storage, contacts.collection, links, page.items);
    after = page.next;
  } while (after);
  return counted;
}

/** One page, found outside the transaction (it only names candidates), counted and written inside it. */
function countPage(storage: Storage, contacts: mongo.Collection, links: Links, found: mongo.Document[]): Promise<number> {
  return storage.transaction(async (session) => {
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
    return written;
  });
}

function byOrganization(docs: mongo.Document[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const doc of docs) {
    const orgId = String(doc.org_id);
    groups.set(orgId, [...(groups.get(orgId) ?? []), String(doc._id)]);
  }
  return groups;
}
