import { Long, type ClientSession, type Db, type Document } from 'mongodb';
import type { StoredDocument } from './stored-document';

/** A read's order: 1 ascending, -1 descending, in key order. */
export type SortSpec = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: SortSpec;
  limit?: number;
  projection?: Document;
  session?: ClientSession;
}

/**
 * The documents matching a filter, read with the find command and its reply decoded once. The driver's cursor
 * (mongodb 6 and 7: CursorResponse.shift) indexes every field of each document of a reply before it decodes the
 * whole document anyway; under load that index was a third of what the CRM promoted to its old generation, and the
 * cursor with mongoose's query around it cost a list page ~60 % more client CPU than this (docs/performance.md,
 * "Reads through the find command"). A limited read asks for its whole limit in the first batch; a batch cut short
 * by the reply size limit (16 MB) goes on with getMore. No schema casting: filters carry values of the stored types.
 */
export async function findDocuments(
  db: Db,
  collection: string,
  filter: Document,
  { sort, limit, projection, session }: FindOptions = {},
): Promise<StoredDocument[]> {
  const first = await db.command(
    { find: collection, filter, ...(sort && { sort }), ...(projection && { projection }), ...(limit && { limit, batchSize: limit }) },
    { session },
  );
  const docs = first.cursor.firstBatch as StoredDocument[];
  let cursorId = Long.fromValue(first.cursor.id);
  while (!cursorId.isZero()) {
    const more = await db.command({ getMore: cursorId, collection }, { session });
    docs.push(...(more.cursor.nextBatch as StoredDocument[]));
    cursorId = Long.fromValue(more.cursor.id);
  }
  return docs;
}
