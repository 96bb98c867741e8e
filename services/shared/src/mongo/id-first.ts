import type { Aggregate, MongooseQueryMiddleware, Query, Schema } from 'mongoose';

type Filter = Record<string, unknown>;

/**
 * The filter as the store is sent it: `_id` first, or in a `$and` the conjunct holding `_id` first, with the
 * filter's other fields after it. SecantusDB reads a filter that no index covers whole through the first of its
 * fields, in the order sent, that leads an index (a `$and`'s other fields count first, then its conjuncts in
 * order): `{org_id, _id}` reads the organization's whole range through an index led by org_id and keeps one
 * document (20 ms of the server's CPU at 10,000 contacts), `{_id, org_id}` is a point lookup (0.3 ms); measured
 * by `npm run bench:reads`' driver probe. MongoDB plans by cost and ignores the order. Returns the filter itself
 * when `_id` already leads (or is absent).
 */
export function idFirst<F extends Filter>(filter: F): F {
  const keys = Object.keys(filter);
  if (keys[0] === '_id') return filter;
  if ('_id' in filter) return { _id: filter._id, ...filter };
  const { $and: conjuncts, ...rest } = filter;
  if (!Array.isArray(conjuncts)) return filter;
  const at = conjuncts.findIndex((part) => isFilter(part) && '_id' in part);
  if (at < 0) return filter;
  const first = idFirst(conjuncts[at] as Filter);
  const others = conjuncts.filter((_, index) => index !== at);
  if (at === 0 && first === conjuncts[0] && Object.keys(rest).length === 0) return filter;
  return { $and: [first, ...others, ...(Object.keys(rest).length > 0 ? [rest] : [])] } as unknown as F;
}

const isFilter = (value: unknown): value is Filter => typeof value === 'object' && value !== null && !Array.isArray(value);

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

const ordered = new WeakSet<Schema>();

/** Every query and aggregate of the schema's models sends its filter with `_id` first (idFirst). */
export function sendIdFirst(schema: Schema): void {
  if (ordered.has(schema)) return;
  ordered.add(schema);
  schema.pre(QUERIES, { document: false, query: true }, function (this: Query<unknown, unknown>) {
    const filter = this.getFilter();
    const first = idFirst(filter);
    if (first !== filter) this.setQuery(first);
  });
  schema.pre('aggregate', function (this: Aggregate<unknown>) {
    const [stage] = this.pipeline() as Array<{ $match?: Filter }>;
    if (stage?.$match) stage.$match = idFirst(stage.$match);
  });
}
