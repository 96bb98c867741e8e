import type { Document } from 'mongodb';

/**
 * How many rows of another collection link to each row of a page (a contact's notes, its deals), counted inside
 * the page's own command: one `$lookup` per count after the page's `$match`/`$sort`/`$limit`, so a page and what
 * links to its rows cost one round trip, and the counts are read from the linked rows themselves, never stored
 * beside the row where a write could leave them behind.
 */
export interface LinkedCount {
  /** The name the count is answered under. */
  name: string;
  /** The linked collection. */
  from: string;
  /** Its field holding the linked row's `_id`: a value, or an array of them (a deal's contact_ids). */
  field: string;
  /** Which of its rows count (e.g. the organization's live ones). */
  where: Document;
}

/** Counts per row `_id`, by count name. */
export type LinkedCountsOf = Map<string, Record<string, number>>;

/** Where a row's counts travel in the command's answer, beside its stored fields. */
const key = (count: LinkedCount) => `__linked_${count.name}`;

/**
 * The stages that count `counts` for each row of the page: a `$lookup` with `localField`/`foreignField` (an array
 * field matches any of its elements) narrowed by `where` and reduced to one `{n}` document by `$count`.
 */
export function linkedCountStages(counts: readonly LinkedCount[]): Document[] {
  return counts.map((count) => ({
    $lookup: {
      from: count.from,
      localField: '_id',
      foreignField: count.field,
      pipeline: [{ $match: count.where }, { $count: 'n' }],
      as: key(count),
    },
  }));
}

/** Takes the counts out of the rows (they are not stored fields): each row's counts by name, and the rows as stored. */
export function takeLinkedCounts<T extends Document & { _id: unknown }>(rows: T[], counts: readonly LinkedCount[]): LinkedCountsOf {
  const byRow: LinkedCountsOf = new Map();
  for (const row of rows) {
    const values: Record<string, number> = {};
    for (const count of counts) {
      const found = row[key(count)] as Array<{ n?: number }> | undefined;
      values[count.name] = Number(found?.[0]?.n ?? 0);
      delete (row as Document)[key(count)];
    }
    byRow.set(String(row._id), values);
  }
  return byRow;
}
