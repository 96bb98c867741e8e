import { isDeepStrictEqual } from 'node:util';
import type { AnyBulkWriteOperation, Collection, Document } from 'mongodb';
import type { Logger } from '../logger';
import { idFirst } from './filter-routing';
import type { KeysetPage, KeysetPosition } from './list-page';
import type { StoredDocument } from './stored-document';
import type { Storage } from './storage';

export interface DerivedTarget {
  collection: Collection<Document>;
  /** Where a pass that found nothing left to change is marked, by collection and version. */
  passes: Collection<Document>;
  version: string;
  derive(doc: StoredDocument): Record<string, unknown>;
  /** Fields the keys are computed from, which guard a write to a record without a revision. */
  sources: readonly string[];
  /** The collection in `_id` order, one page after another (the kit's windowed keyset pages). */
  page(after: KeysetPosition | undefined): Promise<KeysetPage<StoredDocument>>;
}

/**
 * Recomputes the derived keys of every stored record, once per version: records stored before it (or by a
 * replica of the previous version) get theirs. Safe with several replicas at once: each write is conditional on
 * the revision (or the sources) it was computed from, and only a pass that found nothing left to change marks
 * the version done, so a second start after an upgrade walks again and catches what older replicas still wrote.
 */
export function refreshDerived(target: DerivedTarget): Promise<number> {
  return oncePerVersion(target.passes, `${target.collection.collectionName}:${target.version}`, async () => {
    let changed = 0;
    let after: KeysetPosition | undefined;
    do {
      const page = await target.page(after);
      const writes = page.items.flatMap((doc) => refreshOf(target, doc));
      if (writes.length > 0) changed += (await target.collection.bulkWrite(writes, { ordered: false })).modifiedCount;
      after = page.next;
    } while (after);
    return changed;
  });
}

/**
 * Runs a start-up pass over stored records (`pass` answers how many it changed) until one finds nothing left to
 * change: that pass marks `marker` done in `passes`, and later starts skip it. A pass that changed something runs
 * again at the next start, which catches what replicas of the previous version still wrote meanwhile.
 */
export async function oncePerVersion(passes: Collection<Document>, marker: string, pass: () => Promise<number>): Promise<number> {
  if (await passes.findOne({ _id: marker as never })) return 0;
  const changed = await pass();
  if (changed === 0) await passes.updateOne({ _id: marker as never }, { $set: { completed_at: new Date() } }, { upsert: true });
  return changed;
}

function refreshOf(target: DerivedTarget, doc: StoredDocument): AnyBulkWriteOperation<Document>[] {
  const derived = target.derive(doc);
  if (Object.entries(derived).every(([key, value]) => isDeepStrictEqual(doc[key], value))) return [];
  const guard =
    typeof doc.rev === 'number' ? { rev: doc.rev } : Object.fromEntries(target.sources.map((field) => [field, doc[field] ?? null]));
  return [{ updateOne: { filter: idFirst({ _id: doc._id as never, ...guard }), update: { $set: derived } } }];
}

/**
 * Brings the derived keys of every record store of this database up to date (RecordStore.refreshDerived), one
 * store after the other, in the background of a start: the service serves meanwhile, and a record found by its
 * derived keys (a search) is found once the pass has reached it. A failure is logged and tried again next start.
 */
export async function refreshDerivedFields(storage: Storage, logger: Logger): Promise<void> {
  for (const store of storage.derived) {
    const collection = store.collection.collectionName;
    try {
      const started = Date.now();
      const changed = await store.refreshDerived();
      if (changed > 0) logger.info({ collection, changed, ms: Date.now() - started }, 'derived keys refreshed');
    } catch (error) {
      logger.warn({ collection, err: error }, 'derived keys not refreshed; the next start tries again');
    }
  }
}
