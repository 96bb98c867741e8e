import type { Aggregate, Connection, MongooseQueryMiddleware, Query, Schema } from 'mongoose';
import type { StoreDescription } from './store';

type Filter = Record<string, unknown>;

/**
 * How a filter reaches the store so that it reads only what the filter pins. SecantusDB 0.5 reads a filter through
 * an index only when the filter's fields are exactly an index's leading fields (equalities, then at most one range
 * on the next field); any other filter it reads through the first of its fields, in the order sent, that leads an
 * index, checking the rest document by document (a `$and` is read conjunct by conjunct, in order, when one of them
 * is an operator). Most filters name the organization first, and almost every index is led by `org_id`: a filter
 * that was not exactly an index read its organization's whole range of the collection. MongoDB plans by cost and
 * ignores both the order and the nesting. Measured by `npm run bench:reads`' driver probe (docs/performance.md).
 */

/**
 * A filter that names its documents by id, sent as `{$and: [{_id: …}, {$and: [<the rest>]}]}`: a point lookup
 * whatever else the filter says, on every store. SecantusDB reads a filter through the first of its fields that leads
 * an index (`{org_id, _id}` read the organization's range: 20 ms of the server's CPU at 10,000 contacts against 0.3),
 * and its planner, like mongod's, tries every index a top-level condition could use against each other — with no
 * plan cache, on every command, reading the whole collection to count what each would examine (up to 2,000
 * documents). Conditions inside the nested `$and` lead no candidate, so `_id` is the only plan: a find by id on a
 * collection of 17 indexes costs the server 0.16 ms of CPU instead of 0.41, a findOneAndUpdate 0.32 instead of 0.62
 * (docs/performance.md). MongoDB flattens the nesting and plans the same filter as before. Returns the filter itself
 * when `_id` is its only condition, it names no ids, or it is already in this shape.
 */
export function idFirst<F extends Filter>(filter: F): F {
  if (pinsIds(filter)) {
    const { _id, ...rest } = filter;
    return (Object.keys(rest).length === 0 ? filter : { $and: [{ _id }, { $and: [rest] }] }) as F;
  }
  const { $and: conjuncts, ...rest } = filter;
  if (!Array.isArray(conjuncts)) return filter;
  const at = conjuncts.findIndex((part) => isFilter(part) && pinsIds(part));
  if (at < 0) return filter;
  const { _id, ...besideId } = conjuncts[at] as Filter;
  const others = [
    ...(Object.keys(besideId).length > 0 ? [besideId] : []),
    ...conjuncts.filter((_, index) => index !== at),
    ...(Object.keys(rest).length > 0 ? [rest] : []),
  ];
  if (others.length === 0) return filter;
  const shaped = at === 0 && others.length === 1 && others[0] === conjuncts[1] && isNestedAnd(others[0]);
  return shaped ? filter : ({ $and: [{ _id }, { $and: others }] } as unknown as F);
}

/**
 * On a store that routes by leading fields: a plain filter that is not exactly an index's leading fields, but
 * fixes two or more of some index's leading fields (or one and a range on the next), is sent as
 * `{$and: [<those fields>, {$and: [<the rest>]}]}` — the same documents, read through that index (the
 * conversation a message lands in, `{org_id, contact_id, channel, instance_id, status}`, through its unique key
 * instead of the organization's range). The index that pins the most fields wins; between equals, the one more of
 * whose fields the filter names.
 */
export class IndexPrefixes {
  constructor(private readonly indexes: string[][]) {}

  static of(schema: Schema): IndexPrefixes {
    return new IndexPrefixes(
      schema
        .indexes()
        .filter(([key, options]) => plainIndex(key, options as { sparse?: boolean; partialFilterExpression?: unknown }))
        .map(([key]) => Object.keys(key)),
    );
  }

  route<F extends Filter>(filter: F): F {
    if (Array.isArray(filter.$and)) return this.routeConjuncts(filter);
    const keys = Object.keys(filter);
    if (keys.length < 2 || keys.some((key) => key.startsWith('$') || key === '_id')) return filter;
    const fixed = new Set(keys.filter((key) => isKeyValue(filter[key])));
    const ranged = new Set(keys.filter((key) => isOperators(filter[key])));
    let best: readonly string[] = [];
    let bestNamed = 0;
    for (const index of this.indexes) {
      const equal = fixedPrefix(index, fixed);
      const next = index[equal.length];
      const prefix = next !== undefined && ranged.has(next) ? [...equal, next] : equal;
      if (prefix.length === keys.length && ranged.size <= 1) return filter;
      // Between equal prefixes, the index more of whose fields the filter names (it was made for this filter).
      const named = index.filter((field) => field in filter).length;
      if (prefix.length > best.length || (prefix.length === best.length && named > bestNamed)) [best, bestNamed] = [prefix, named];
    }
    if (best.length < 2) return filter;
    const pinned = Object.fromEntries(best.map((key) => [key, filter[key]]));
    const rest = Object.fromEntries(keys.filter((key) => !best.includes(key)).map((key) => [key, filter[key]]));
    return { $and: [pinned, { $and: [rest] }] } as unknown as F;
  }

  /**
   * A `$and` as the store reads it (its other top-level fields a first conjunct): when every conjunct is plain
   * fields, the store merges them into one filter — `{$and: [{org_id, conversation_id, deleted_at: null}]}` was read
   * by the organization's range, like the flat filter — so the merged filter is routed; otherwise the store reads
   * conjunct by conjunct, in order, and each plain one is routed as a filter of its own.
   */
  private routeConjuncts<F extends Filter>(filter: F): F {
    const { $and: conjuncts, ...top } = filter;
    const parts = [...(Object.keys(top).length > 0 ? [top] : []), ...(conjuncts as unknown[])];
    if (!parts.every(isFilter)) return filter;
    if (parts.every(isPlain)) {
      const fields = parts.flatMap((part) => Object.keys(part));
      if (new Set(fields).size < fields.length) return filter;
      const merged = Object.assign({}, ...parts) as Filter;
      const routed = this.route(merged);
      return (routed === merged ? filter : routed) as F;
    }
    const routed = parts.map((part) => (isPlain(part) ? this.route(part) : part));
    return (routed.every((part, at) => part === parts[at]) ? filter : { $and: routed }) as F;
  }
}

/** The leading fields of `index` that `fixed` holds, in the index's order: what an equality read of it is bounded by. */
export function fixedPrefix(index: readonly string[], fixed: { has(field: string): boolean }): readonly string[] {
  let count = 0;
  while (count < index.length && fixed.has(index[count]!)) count++;
  return index.slice(0, count);
}

/** A value the store's router reads an index by: a string, number, boolean, date or null (not a document, an array or a pattern). */
export const isKeyValue = (value: unknown): boolean =>
  value === null || value instanceof Date || ['string', 'number', 'boolean'].includes(typeof value);

function plainIndex(key: Record<string, unknown>, options: { sparse?: boolean; partialFilterExpression?: unknown } = {}): boolean {
  return (
    !options.sparse && !options.partialFilterExpression && Object.values(key).every((direction) => direction === 1 || direction === -1)
  );
}

/** `{$gte: …}`, `{$in: […]}`: a condition on the field, which bounds an index read only as its last field. */
function isOperators(value: unknown): boolean {
  if (!isFilter(value) || value instanceof Date || value instanceof RegExp) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key.startsWith('$'));
}

const isFilter = (value: unknown): value is Filter => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Fields only, no operator at the top (`$and`, `$or`): the store merges such conjuncts of a `$and` into one filter. */
const isPlain = (filter: Filter): boolean => Object.keys(filter).every((key) => !key.startsWith('$'));

/** `{$and: […]}` and nothing else: conditions the planner of SecantusDB does not read an index by. */
const isNestedAnd = (value: unknown): boolean => isFilter(value) && Object.keys(value).length === 1 && Array.isArray(value.$and);

/** The filter names its documents' ids: `_id` equal to a value, or `$in` a list (a `$ne` pins nothing). */
function pinsIds(filter: Filter): boolean {
  if (!('_id' in filter)) return false;
  const id = filter._id;
  if (!isFilter(id) || id instanceof Date) return true;
  const keys = Object.keys(id);
  return !keys.every((key) => key.startsWith('$')) || (keys.length === 1 && (keys[0] === '$eq' || keys[0] === '$in'));
}

const QUERIES: MongooseQueryMiddleware[] = [
  'countDocuments',
  'deleteMany',
  'deleteOne',
  'find',
  'findOne',
  'findOneAndDelete',
  'findOneAndReplace',
  'findOneAndUpdate',
  'replaceOne',
  'updateMany',
  'updateOne',
];

const prefixesOf = new WeakMap<Schema, IndexPrefixes>();

/** `filter` as the store is to be sent it, for a collection of `schema` (idFirst, then IndexPrefixes where it routes so). */
function shaped(schema: Schema, store: StoreDescription | undefined, filter: Filter): Filter {
  const first = idFirst(filter);
  if (first !== filter || !store?.routesByLeadingFields) return first;
  // Read on first use: the kit adds the outbox's index to the schema while building the store.
  let prefixes = prefixesOf.get(schema);
  if (!prefixes) prefixesOf.set(schema, (prefixes = IndexPrefixes.of(schema)));
  return prefixes.route(filter);
}

const storeOf = (connection: unknown) => (connection as { store?: StoreDescription }).store;

/**
 * A filter for a driver command on one of the connection's collections, written by hand (a raw aggregate over
 * another module's records): shaped as the kit's own queries are, with the indexes of that collection's model.
 */
export function routedFilter<F extends Filter>(connection: Connection, collection: string, filter: F): F {
  const model = Object.values(connection.models).find((candidate) => candidate.collection.collectionName === collection);
  return (model ? shaped(model.schema, storeOf(connection), filter) : idFirst(filter)) as F;
}

const routed = new WeakSet<Schema>();

/**
 * Every query and aggregate of the schema's models sends its filter (an aggregate: its first `$match`) with `_id`
 * first, and on a store that routes by leading fields through the index that pins it (IndexPrefixes).
 */
export function routeFilters(schema: Schema): void {
  if (routed.has(schema)) return;
  routed.add(schema);
  schema.pre(QUERIES, { document: false, query: true }, function (this: Query<unknown, unknown>) {
    const filter = this.getFilter();
    const sent = shaped(schema, storeOf(this.model.db), filter);
    if (sent !== filter) this.setQuery(sent);
  });
  schema.pre('aggregate', function (this: Aggregate<unknown>) {
    const [stage] = this.pipeline() as Array<{ $match?: Filter }>;
    if (stage?.$match) stage.$match = shaped(schema, storeOf(this.model().db), stage.$match);
  });
}
