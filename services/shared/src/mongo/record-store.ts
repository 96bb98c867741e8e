import type { Collection, Document } from 'mongodb';
import type { ClientSession, FilterQuery, Model, Schema } from 'mongoose';
import type { OutboxEntry } from '../outbox/domain-event';
import { leaseFree, OUTBOX_FIELDS, OUTBOX_KEYS, outboxOnInsert } from '../outbox/outbox-fields';
import { retryOnConflict, WriteConflict } from './conflicts';
import { isDuplicateKeyError } from './client';
import { CoalescedCommands } from './coalesced-commands';
import { findDocuments, type FindOptions, type SortSpec } from './find-documents';
import { idFirst, routedFilter, routeFilters } from './filter-routing';
import { refreshDerived } from './derived-fields';
import type { StoredDocument } from './stored-document';
import { keysetQuery, toPage, type KeysetPage, type PageOrder, type PageRequest } from './list-page';
import { ListWindows } from './list-window';
import { toDocument, toRecord } from './record-mapper';
import type { Storage } from './storage';
import { operatorsOf, withEvents, withRevisionBump, type Change, type UpdateOperators } from './update-document';

/** Optimistic concurrency: a revisioned record's `rev` advances with every write (update-document.ts). */
export interface Revision {
  rev: number;
}

/** A record as a revisioned store answers it. */
export type Revised<R> = R & Revision;

/** A new record starts at revision 1, in the kit only. */
export const INITIAL_REVISION = 1;

export type { StoredDocument } from './stored-document';

export type StoreFilter = FilterQuery<StoredDocument>;

export interface RecordStoreOptions<R> {
  /** The mongoose model name; the schema names the collection. */
  model: string;
  schema: Schema;
  /** How the record is named in a conflict's message: "The <what> changed too often concurrently". */
  what: string;
  /** Stored keys that are not part of the record: sort keys, bookkeeping. */
  internal?: readonly string[];
  /** Stored keys computed from the record's fields: added to inserts and to every update that sets their source. */
  derive?: (fields: Partial<R>) => Record<string, unknown>;
  /**
   * The fields `derive` reads together (a search key of name, e-mail and phone): an update that sets some of them
   * reads the others from the stored record and writes only if they are still those (at its revision, for
   * updateAtRevision), so the derived keys always describe the record as stored.
   */
  deriveFrom?: ReadonlyArray<keyof R & string>;
  /**
   * Names the current `derive`: records stored before it (or by an older one) get their derived keys recomputed
   * by refreshDerived, once per version (derived-fields.ts).
   */
  deriveVersion?: string;
  /** The documents carry an embedded outbox: writes may carry events, and writing them wakes the relay. */
  outbox?: boolean;
  /** A stored record as the domain sees it (e.g. secrets opened), after the mapping. */
  fromStored?: (record: R) => R;
}

export interface WriteOptions {
  /** Events of the change, written in the same single-document write. */
  events?: OutboxEntry[];
  session?: ClientSession;
}

export interface UpdateOptions extends WriteOptions {
  upsert?: boolean;
  /** Answer the record as it was before the update. */
  before?: boolean;
  /** Which of several matching records is updated: the first in this order. */
  sort?: SortSpec;
}

/**
 * The storage kit's handle on one collection of records. Every repository defines its records with it, so the
 * patterns where correctness lives are written once: the record mapping, inserts and updates that carry their
 * events in the same write and wake the outbox relay by themselves, keyset pages, and (RevisionedRecords)
 * revision-conditional updates. Anything else a repository needs it writes on `model` or `collection`.
 */
interface WriteFailure {
  index: number;
  code?: number;
}

export class RecordStore<R extends { id: string }, S extends R = R> {
  readonly model: Model<StoredDocument>;
  readonly collection: Collection<Document>;
  /** Windowed pages, on a store whose finds read every match (list-window.ts); MongoDB's scans stop at the limit. */
  private readonly windows: ListWindows | undefined;
  /** A projection leaving out what `record` drops anyway (the outbox's and the internal keys): less to send and decode. */
  readonly hidden: Record<string, 0>;
  /** Inserts and reads by id of concurrent callers, one command per turn of the event loop. */
  private readonly coalesced: CoalescedCommands;

  constructor(
    protected readonly storage: Storage,
    protected readonly options: RecordStoreOptions<R>,
  ) {
    if (options.outbox) addOnce(options.schema, '_outbox', OUTBOX_FIELDS, { _outbox_pending: 1 });
    routeFilters(options.schema);
    this.model = storage.connection.model<StoredDocument>(options.model, options.schema);
    this.collection = this.model.collection as unknown as Collection<Document>;
    if (options.outbox) storage.outbox.register(this.collection);
    this.coalesced = new CoalescedCommands(this.collection, (filter) => this.find(filter));
    if (options.deriveVersion) storage.derived.add(this);
    const indexes = options.schema.indexes().map(([fields]) => Object.keys(fields));
    this.windows = storage.store?.readsWholeMatch ? new ListWindows(indexes) : undefined;
    this.hidden = Object.fromEntries([...OUTBOX_KEYS, ...(options.internal ?? [])].map((key) => [key, 0 as const]));
  }

  /** The record mapper (record-mapper.ts), with this collection's internal keys and read transform. */
  readonly record = (doc: object): S => {
    const record = toRecord<S>(doc, this.options.internal);
    return (this.options.fromStored?.(record) as S | undefined) ?? record;
  };

  async findOne(filter: StoreFilter, sort?: SortSpec): Promise<S | null> {
    const doc = await ((sort ? undefined : this.coalesced.findById(filter)) ?? this.findFirst(filter, { sort }));
    return doc ? this.record(doc) : null;
  }

  async findMany(filter: StoreFilter, options: { sort?: SortSpec; limit?: number } = {}): Promise<S[]> {
    const docs = await this.find(filter, options);
    return docs.map(this.record);
  }

  /** Stored documents matching `filter`, internal keys included, the filter shaped as mongoose's queries are. */
  private find(filter: StoreFilter, options: FindOptions = {}): Promise<StoredDocument[]> {
    const { connection } = this.storage;
    if (!connection.db) throw new Error(`The ${this.options.what} store is read before its database is connected`);
    const name = this.collection.collectionName;
    return findDocuments(connection.db, name, routedFilter(connection, name, filter), options);
  }

  private async findFirst(filter: StoreFilter, options: Omit<FindOptions, 'limit'>): Promise<StoredDocument | null> {
    return (await this.find(filter, { ...options, limit: 1 }))[0] ?? null;
  }

  count(filter: StoreFilter, options: { session?: ClientSession } = {}): Promise<number> {
    return this.model
      .countDocuments(filter)
      .session(options.session ?? null)
      .exec();
  }

  /**
   * One keyset page of the records matching every condition (list-page.ts), windowed where the store needs it.
   * Null conditions match nothing (a search with no word in it): an empty page, no query. `few` says the
   * conditions pin a small set (a conversation's messages): one command reads it whole, where windows sized for
   * a large list would take one command each until the page is full (five for a conversation of a few messages).
   */
  async listPage(
    conditions: StoreFilter[] | null,
    order: PageOrder,
    page: PageRequest,
    options: { few?: boolean } = {},
  ): Promise<KeysetPage<S>> {
    if (!conditions) return { items: [], hasMore: false, next: undefined };
    const result = await this.storedPage(conditions, order, page, options);
    return { ...result, items: result.items.map(this.record) };
  }

  /** The same page as stored documents, internal keys included. */
  async storedPage(
    conditions: StoreFilter[],
    order: PageOrder,
    page: PageRequest,
    options: { few?: boolean } = {},
  ): Promise<KeysetPage<StoredDocument>> {
    const fetch = (filter: StoreFilter, sort: SortSpec, limit: number) => this.find(filter, { sort, limit });
    const need = page.limit + 1;
    const rows =
      this.windows && !options.few
        ? await this.windows.page({ conditions, order, after: page.after, need }, fetch)
        : await (({ filter, sort }) => fetch(filter, sort, need))(keysetQuery(conditions, order, page.after));
    return toPage(rows, page.limit, order.field);
  }

  /** Inserts a new record (with its events); returns it as stored. */
  async insert(record: R, options: WriteOptions = {}): Promise<S> {
    const stored = this.newStored(record);
    const events = this.eventsOf(options);
    if (events.length === 0) {
      await this.insertDocument(this.documentOf(stored), options.session);
      return stored;
    }
    // A new record cannot be leased by anyone else: it is this process's relay's from its commit on.
    const lease = this.storage.outbox.leaseOnWrite();
    const doc = { ...this.documentOf(stored), ...outboxOnInsert(events, lease) };
    await this.insertDocument(doc, options.session);
    const written = { collection: this.collection.collectionName, id: stored.id, leased: lease && events };
    this.storage.eventsWritten(written, options.session);
    return stored;
  }

  /** Inserts many new records at once, as an import: no events. */
  async importMany(records: R[]): Promise<void> {
    if (records.length > 0)
      await this.collection.insertMany(
        records.map((record) => this.documentOf(this.newStored(record)) as Document),
        { ordered: false },
      );
  }

  /** Inside a transaction alone; otherwise beside the inserts other callers start in the same turn of the loop. */
  private insertDocument(doc: Record<string, unknown>, session: ClientSession | undefined): Promise<unknown> {
    return session ? this.collection.insertOne(doc as Document, { session }) : this.coalesced.insert(doc as Document);
  }

  private documentOf(stored: S): Record<string, unknown> {
    return { ...toDocument(stored), ...this.options.derive?.(stored) };
  }

  /**
   * Inserts unless a unique key is taken (a redelivered event, a retried callback): false then. Inside a
   * transaction the duplicate is thrown instead, so the transaction aborts as a whole.
   */
  async insertIfNew(record: R, options: WriteOptions = {}): Promise<boolean> {
    try {
      await this.insert(record, options);
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error) && !options.session) return false;
      throw error;
    }
  }

  /**
   * Stores new records (no events) in one round trip; those already stored (a duplicate key: a re-consumed event,
   * say) are left out of the answer. Any other failure fails the call.
   */
  async insertManyNew(records: R[]): Promise<R[]> {
    if (records.length === 0) return [];
    try {
      await this.collection.insertMany(
        records.map((record) => ({ ...toDocument(record), ...this.options.derive?.(record) }) as Document),
        { ordered: false },
      );
      return records;
    } catch (error) {
      // The driver gives one WriteError or a list of them.
      const raw = (error as { writeErrors?: WriteFailure | WriteFailure[] }).writeErrors;
      const writeErrors = Array.isArray(raw) ? raw : raw ? [raw] : [];
      if (!isDuplicateKeyError(error) || writeErrors.length === 0 || writeErrors.some((writeError) => writeError.code !== 11000))
        throw error;
      const duplicates = new Set(writeErrors.map((writeError) => writeError.index));
      return records.filter((_, index) => !duplicates.has(index));
    }
  }

  /**
   * One conditional single-document update: `change` (fields to set, or operators) applies to the record matching
   * `filter`, with its events; null when none matched. A revisioned record's revision advances with it. Of two
   * upserts racing to insert one unique key, the loser tries again and updates the winner's document; inside a
   * transaction the duplicate is thrown instead, so the transaction aborts as a whole.
   */
  update(filter: StoreFilter, change: Change<R>, options: UpdateOptions = {}): Promise<S | null> {
    if (!options.upsert || options.session) return this.updateOnce(filter, change, options);
    return retryOnConflict(async () => {
      try {
        return await this.updateOnce(filter, change, options);
      } catch (error) {
        throw isDuplicateKeyError(error) ? new WriteConflict(this.options.what) : error;
      }
    });
  }

  private async updateOnce(filter: StoreFilter, change: Change<R>, options: UpdateOptions): Promise<S | null> {
    const events = this.eventsOf(options);
    const { derive, guard } = await this.derivation(filter, change, options.session, options.sort);
    const operators = this.revisioned(withEvents(operatorsOf(change, derive), events));
    const leased = events.length > 0 ? await this.updateLeased({ ...filter, ...guard }, operators, events, options) : null;
    if (leased) return leased;
    let doc = await this.model
      .findOneAndUpdate({ ...filter, ...guard }, operators, {
        new: !options.before,
        upsert: options.upsert,
        sort: options.sort,
        session: options.session,
      })
      .lean<StoredDocument>();
    // SecantusDB (the local server) sometimes answers an upsert that raced another for the same key with no
    // document although it applied it (n: 1; 3 of 5 rounds of 8 concurrent upserts): the record is read back.
    if (!doc && options.upsert && !options.before) doc = await this.findFirst(filter, { session: options.session });
    if (doc && events.length > 0) this.storage.eventsWritten({ collection: this.collection.collectionName, id: doc._id }, options.session);
    return doc ? this.record(doc) : null;
  }

  /**
   * An update with events, leased to this process's relay in the same write when no relay holds the record (as an
   * insert is): the relay publishes the record's pending entries as the write answered them, instead of leasing the
   * record by id with a write of its own. Null when there is no relay here or it holds the record already (not
   * tried), for an upsert (a missed lease condition would insert), or when nothing matched: the record is held by
   * another relay (the update is then made unleased, and that relay finds it still pending after its
   * acknowledgement) or does not match the filter (the plain update says so).
   */
  private async updateLeased(filter: StoreFilter, operators: UpdateOperators, events: OutboxEntry[], options: UpdateOptions) {
    const lease =
      options.upsert || options.before ? undefined : this.storage.outbox.leaseOnUpdate(this.collection.collectionName, filter._id);
    if (!lease) return null;
    const doc = await this.model
      .findOneAndUpdate(
        { $and: [filter, leaseFree(new Date())] },
        { ...operators, $set: { ...operators.$set, ...lease } },
        {
          new: true,
          sort: options.sort,
          session: options.session,
        },
      )
      .lean<StoredDocument>();
    if (!doc) return null;
    // Every pending entry, in the record's order: those written before by a replica whose relay has not leased the
    // record yet come first (that relay then finds it leased here).
    const pending = (doc._outbox as OutboxEntry[] | undefined) ?? events;
    this.storage.eventsWritten({ collection: this.collection.collectionName, id: doc._id, leased: pending }, options.session);
    return this.record(doc);
  }

  /**
   * How an update derives its keys: from the fields it sets, completed (deriveFrom) with the stored values of the
   * sources it does not set, which then guard the write (it matches nothing if they changed meanwhile).
   */
  private async derivation(filter: StoreFilter, change: Change<R>, session?: ClientSession, sort?: SortSpec) {
    const { derive, deriveFrom } = this.options;
    const set = (operatorsOf(change).$set ?? {}) as Record<string, unknown>;
    const missing = (deriveFrom ?? []).filter((field) => !(field in set));
    if (!derive || missing.length === 0 || missing.length === deriveFrom?.length) return { derive, guard: {} };
    const projection = Object.fromEntries(missing.map((field) => [field, 1]));
    const stored = await this.findFirst(filter, { projection, session, sort });
    if (!stored) return { derive, guard: {} };
    const guard = Object.fromEntries(missing.map((field) => [field, stored[field] ?? null]));
    return { derive: (fields: Partial<R>) => derive({ ...guard, ...fields } as Partial<R>), guard };
  }

  /**
   * One single-document update that carries no events and needs no answer (a date moved forward, a row's status),
   * sent beside the other such updates of this turn of the loop in one command; settles once stored. The driver's
   * operators as given: no derived keys, no revision, no schema casting.
   */
  updateBeside(filter: StoreFilter, operators: Document): Promise<void> {
    return this.coalesced.updateOne(filter, operators);
  }

  /** The same change on every matching record (no events); returns how many changed. */
  async updateMany(filter: StoreFilter, change: Change<R>, options: { session?: ClientSession } = {}): Promise<number> {
    const set = operatorsOf(change).$set ?? {};
    if (this.options.deriveFrom?.some((field) => field in set))
      throw new Error(`${this.options.model}: updateMany cannot set ${this.options.deriveFrom.join(', ')} (derived together)`);
    const result = await this.model.updateMany(filter, this.revisioned(operatorsOf(change, this.options.derive)), {
      session: options.session,
    });
    return result.modifiedCount;
  }

  /** Recomputes the derived keys of records stored without them, once per deriveVersion (derived-fields.ts). */
  refreshDerived(batch = 500): Promise<number> {
    const { derive, deriveFrom, deriveVersion } = this.options;
    if (!derive || !deriveVersion) return Promise.resolve(0);
    return refreshDerived({
      collection: this.collection,
      passes: this.storage.connection.collection('derived_field_passes'),
      version: deriveVersion,
      derive: (doc) => derive(doc as unknown as Partial<R>),
      sources: deriveFrom ?? [],
      page: (after) => this.storedPage([], { field: '_id', order: 'asc', type: 'string', unique: true }, { limit: batch, after }),
    });
  }

  protected newStored(record: R): S {
    return record as S;
  }

  protected revisioned(operators: UpdateOperators): UpdateOperators {
    return operators;
  }

  private eventsOf(options: WriteOptions): OutboxEntry[] {
    const events = options.events ?? [];
    if (events.length > 0 && !this.options.outbox)
      throw new Error(`${this.options.model} records carry no outbox; define them with outbox: true`);
    return events;
  }
}

/**
 * Records with optimistic concurrency: inserted at revision 1, the revision bumped by every write, and
 * `updateAtRevision` for a read-modify-write (see revisioned-write.ts for the whole loop).
 */
export class RevisionedRecords<R extends { id: string }> extends RecordStore<R, Revised<R>> {
  constructor(storage: Storage, options: RecordStoreOptions<R>) {
    addOnce(options.schema, 'rev', { rev: { type: Number, required: true } });
    super(storage, options);
  }

  /**
   * Applies a change computed from the record at revision `rev`, with its events. Throws WriteConflict when the
   * record is not at that revision any more (or is gone): the caller reads again and plans again.
   */
  async updateAtRevision(filter: StoreFilter, rev: number, set: Partial<R>, options: WriteOptions = {}): Promise<Revised<R>> {
    const updated = await this.update({ ...filter, rev }, set, options);
    if (!updated) throw new WriteConflict(this.options.what);
    return updated;
  }

  /**
   * Adds `deltas` to counter fields of the records matching `filter` (in one command, inside the caller's
   * transaction: the counters move with the write that moves them). A record that does not hold the counters yet
   * (stored before they existed: a start-up pass counts it, and reads count it meanwhile) keeps them absent, but
   * its revision advances all the same, so a transaction counting it at this moment conflicts with this one
   * instead of missing its change. Answers how many records matched, counted or not.
   */
  async adjustCounters(filter: StoreFilter, deltas: Record<string, number>, options: { session?: ClientSession } = {}): Promise<number> {
    const fields = Object.keys(deltas);
    if (fields.length === 0) return 0;
    const held = Object.fromEntries(fields.map((field) => [field, { $exists: true }]));
    const lacking = { $or: fields.map((field) => ({ [field]: { $exists: false } })) };
    const result = await this.collection.bulkWrite(
      [
        { updateMany: { filter: idFirst({ $and: [filter, held] }) as Document, update: withRevisionBump({ $inc: deltas }) } },
        { updateMany: { filter: idFirst({ $and: [filter, lacking] }) as Document, update: withRevisionBump({}) } },
      ],
      { ordered: false, session: options.session },
    );
    return result.matchedCount;
  }

  protected override newStored(record: R): Revised<R> {
    return { ...record, rev: INITIAL_REVISION };
  }

  protected override revisioned(operators: UpdateOperators): UpdateOperators {
    return withRevisionBump(operators);
  }
}

/** Adds fields (and an index) to a schema once: several connections of one process define models on it. */
function addOnce(schema: Schema, path: string, fields: object, index?: Record<string, 1>): void {
  if (schema.path(path)) return;
  schema.add(fields as never);
  if (index) schema.index(index);
}
