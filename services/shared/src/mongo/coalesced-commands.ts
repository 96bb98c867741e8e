import DataLoader from 'dataloader';
import {
  MongoBulkWriteError,
  MongoServerError,
  type AnyBulkWriteOperation,
  type Collection,
  type Document,
  type UpdateFilter,
} from 'mongodb';
import { idFirst } from './filter-routing';
import type { StoredDocument } from './stored-document';

/** A read of one document by its _id, under conditions on other fields whose values are plain (same shape, same query). */
interface ReadById {
  id: string;
  /** The filter without _id. */
  rest: Record<string, Primitive>;
  /** `rest` as a key: reads with the same conditions go in one query. */
  shape: string;
}

type Primitive = string | number | boolean | null;

/** The stored documents matching a filter, as the collection's store reads them. */
type FindMany = (filter: Document) => Promise<StoredDocument[]>;

/** An update of at most one document, whose caller needs no count back. */
interface UpdateOne {
  filter: Document;
  update: UpdateFilter<Document>;
}

/**
 * Single-document commands on one collection that start in the same turn of the event loop, sent as one: inserts as
 * one unordered insertMany (each caller learns its own document's failure, e.g. a duplicate key), updates as one
 * unordered bulk write, reads by _id under the same conditions as one find with `$in` (with the caller's find). A
 * batch upsert's items and concurrent requests step through their round trips side by side, so ten items cost one
 * command per step instead of ten. The wait is until the next turn of the loop (setImmediate), microseconds when
 * idle. Writes inside a transaction and reads with other shapes go directly.
 */
export class CoalescedCommands {
  private readonly inserts: DataLoader<Document, true>;
  private readonly updates: DataLoader<UpdateOne, true, UpdateOne>;
  private readonly reads: DataLoader<ReadById, StoredDocument | null, ReadById> | undefined;

  constructor(collection: Collection<Document>, find?: FindMany) {
    const options = { cache: false, maxBatchSize: 1_000, batchScheduleFn: (dispatch: () => void) => setImmediate(dispatch) };
    this.inserts = new DataLoader((docs) => insertEach(collection, docs), options);
    this.updates = new DataLoader((updates) => updateEach(collection, updates), options);
    this.reads = find && new DataLoader((reads) => readEach(find, reads), options);
  }

  /** Inserts one document; a failure of this document alone (a duplicate key) rejects with the server's error. */
  async insert(doc: Document): Promise<void> {
    await this.inserts.load(doc);
  }

  /** Updates the one document `filter` matches, if any; a failure of this update alone rejects with the server's error. */
  async updateOne(filter: Document, update: UpdateFilter<Document>): Promise<void> {
    await this.updates.load({ filter, update });
  }

  /**
   * The document `filter` matches, when the filter is an _id and plain equalities (null included): undefined when
   * the filter has another shape or there is no find (the caller queries itself).
   */
  findById(filter: Record<string, unknown>): Promise<StoredDocument | null> | undefined {
    const { _id: id, ...rest } = filter;
    if (!this.reads || typeof id !== 'string' || !Object.values(rest).every(isPrimitive)) return undefined;
    return this.reads.load({ id, rest: rest as Record<string, Primitive>, shape: JSON.stringify(rest) });
  }
}

const isPrimitive = (value: unknown): value is Primitive =>
  value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

const insertEach = (collection: Collection<Document>, docs: readonly Document[]) =>
  eachOutcome(docs.length, () => collection.insertMany(docs as Document[], { ordered: false }));

const updateEach = (collection: Collection<Document>, updates: readonly UpdateOne[]) =>
  eachOutcome(updates.length, () =>
    collection.bulkWrite(
      updates.map(({ filter, update }): AnyBulkWriteOperation<Document> => ({ updateOne: { filter: idFirst(filter), update } })),
      { ordered: false },
    ),
  );

/** Runs one unordered write of `count` operations: each caller gets its own operation's failure, or true. */
async function eachOutcome(count: number, write: () => Promise<unknown>): Promise<Array<true | Error>> {
  try {
    await write();
    return Array.from({ length: count }, () => true);
  } catch (error) {
    if (!(error instanceof MongoBulkWriteError)) throw error;
    const failures = new Map([error.writeErrors].flat().map((failure) => [failure.index, failure]));
    if (failures.size === 0) throw error;
    return Array.from({ length: count }, (_, index) => {
      const failure = failures.get(index);
      return failure
        ? new MongoServerError({ message: failure.errmsg ?? 'write failed', code: failure.code, errmsg: failure.errmsg })
        : true;
    });
  }
}

async function readEach(find: FindMany, reads: readonly ReadById[]): Promise<Array<StoredDocument | null>> {
  const shapes = new Map<string, ReadById[]>();
  for (const read of reads) {
    const same = shapes.get(read.shape);
    if (same) same.push(read);
    else shapes.set(read.shape, [read]);
  }
  const found = new Map<string, StoredDocument>();
  await Promise.all(
    [...shapes.values()].map(async (same) => {
      const ids = [...new Set(same.map((read) => read.id))];
      const docs = await find({ ...same[0]!.rest, _id: { $in: ids } });
      for (const doc of docs) found.set(`${same[0]!.shape}\n${String(doc._id)}`, doc);
    }),
  );
  // A document read twice in one batch goes to the second caller as a copy: callers may change what they get.
  const handed = new Set<string>();
  return reads.map((read) => {
    const key = `${read.shape}\n${read.id}`;
    const doc = found.get(key);
    if (!doc) return null;
    if (handed.has(key)) return structuredClone(doc);
    handed.add(key);
    return doc;
  });
}
