import type { Logger } from '../logger';
import type { Storage } from './storage';

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
