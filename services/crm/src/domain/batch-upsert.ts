import { AppError, isDuplicateKeyError, type Logger } from '@crm/shared';

export type UpsertStatus = 'created' | 'updated' | 'unchanged';

export interface ItemError {
  code: string;
  message: string;
  details: Record<string, unknown> | null;
}

export interface BatchItemResult {
  index: number;
  status: UpsertStatus | 'error';
  id: string | null;
  error: ItemError | null;
}

/** A batch upsert takes at most this many items (the gateway refuses more before calling). */
export const MAX_BATCH_ITEMS = 100;

/**
 * Items of one batch written at once; the items of one chain (below) still one after another. Their round trips
 * step side by side, so the storage kit sends each step's reads by id and inserts as one command (coalesced-commands.ts).
 */
const ITEMS_AT_ONCE = 25;

/**
 * Runs one upsert per item and answers the results in item order. Items that may name the same record (a natural
 * key in common, or the same item repeated) form a chain and run in order, so two items naming one person meet as a
 * create then an update, and an item identical to an earlier one is not written again (its result is the earlier
 * one's, `unchanged`); chains run ITEMS_AT_ONCE at a time, since an item costs several sequential database round
 * trips (shared by the items beside it). An item that fails answers its public error object and never fails the others; a failure of ours is
 * logged and answered as INTERNAL_ERROR for that item alone.
 */
export async function runBatch(
  items: unknown[],
  logger: Logger,
  upsert: (item: unknown) => Promise<{ status: UpsertStatus; id: string }>,
): Promise<BatchItemResult[]> {
  if (items.length === 0 || items.length > MAX_BATCH_ITEMS) {
    throw new AppError('VALIDATION_ERROR', `items must hold 1 to ${MAX_BATCH_ITEMS} entries.`, {
      fields: [{ field: 'items', issue: `must hold 1 to ${MAX_BATCH_ITEMS} entries` }],
    });
  }
  const results: BatchItemResult[] = new Array(items.length);
  // An item repeated in the batch is the same write again: nothing left to change (or the same refusal).
  const earlier = new Map<string, BatchItemResult>();
  const runItem = async (index: number): Promise<BatchItemResult> => {
    const item = items[index];
    const key = JSON.stringify(item);
    const same = earlier.get(key);
    if (same) return { ...same, index, status: same.status === 'error' ? 'error' : 'unchanged' };
    let result: BatchItemResult;
    try {
      const outcome = await upsert(item);
      result = { index, status: outcome.status, id: outcome.id, error: null };
    } catch (error) {
      result = { index, status: 'error', id: null, error: itemError(error, index, logger) };
    }
    earlier.set(key, result);
    return result;
  };
  const chains = chainsOf(items);
  let next = 0;
  const worker = async () => {
    for (let chain = chains[next++]; chain; chain = chains[next++]) {
      for (const index of chain) results[index] = await runItem(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ITEMS_AT_ONCE, chains.length) }, worker));
  return results;
}

/**
 * The batch's items grouped so that items sharing a natural key (external_id, e-mail or phone, compared trimmed and
 * lower-cased: grouping too much only serializes) or repeating an item fall in one chain, each chain in item order.
 */
export function chainsOf(items: unknown[]): number[][] {
  const firstWithKey = new Map<string, number>();
  const parent = items.map((_, index) => index);
  const root = (index: number): number => (parent[index] === index ? index : (parent[index] = root(parent[index]!)));
  items.forEach((item, index) => {
    for (const key of chainKeys(item)) {
      const other = firstWithKey.get(key);
      if (other === undefined) firstWithKey.set(key, index);
      else parent[root(other)] = root(index);
    }
  });
  const chains = new Map<number, number[]>();
  items.forEach((_, index) => {
    const chain = chains.get(root(index)) ?? [];
    chains.set(root(index), chain);
    chain.push(index);
  });
  return [...chains.values()];
}

function chainKeys(item: unknown): string[] {
  const keys = [`item:${JSON.stringify(item)}`];
  if (item === null || typeof item !== 'object') return keys;
  for (const field of ['external_id', 'email', 'phone'] as const) {
    const value = (item as Record<string, unknown>)[field];
    if (typeof value === 'string') keys.push(`key:${value.trim().toLowerCase()}`);
  }
  return keys;
}

function itemError(error: unknown, index: number, logger: Logger): ItemError {
  if (error instanceof AppError && error.httpStatus < 500) {
    return { code: error.code, message: error.message, details: error.details ?? null };
  }
  logger.error({ err: error, item: index }, 'batch upsert item failed');
  return { code: 'INTERNAL_ERROR', message: 'This item could not be written; retry it.', details: null };
}

/**
 * Create-or-update of one item as a conditional upsert: match, then update the match or insert under an id derived
 * from the item's first natural key, so that concurrent batches naming the same record insert one document. A
 * create that loses a race (a duplicate key, or a unique e-mail or phone claimed meanwhile) matches again and
 * updates the winner. After a lost race the derived id may be a deleted record's: the next create takes a fresh id.
 */
export async function upsertOne<R extends { id: string }>(steps: {
  match: () => Promise<R | null>;
  update: (match: R) => Promise<{ id: string; changed: boolean }>;
  create: (attempt: number) => Promise<{ id: string }>;
  lostRace: (error: unknown) => boolean;
}): Promise<{ status: UpsertStatus; id: string }> {
  const ATTEMPTS = 3;
  for (let attempt = 0; ; attempt++) {
    const match = await steps.match();
    if (match) {
      const updated = await steps.update(match);
      return { status: updated.changed ? 'updated' : 'unchanged', id: updated.id };
    }
    try {
      return { status: 'created', id: (await steps.create(attempt)).id };
    } catch (error) {
      if (attempt + 1 >= ATTEMPTS || !(isDuplicateKeyError(error) || steps.lostRace(error))) throw error;
    }
  }
}

/** The natural keys an item is matched by, in order of precedence: external_id, then e-mail, then phone. */
export function naturalKeys(item: { external_id?: string; email?: string; phone?: string }) {
  return (['external_id', 'email', 'phone'] as const).flatMap((field) => {
    const value = item[field];
    return value === undefined ? [] : [{ field, value }];
  });
}

/** `name` is needed only when an item creates. */
export function requireName(name: string | undefined, what: string): string {
  if (name !== undefined) return name;
  throw new AppError('VALIDATION_ERROR', `name is required when no ${what} matches the item.`, {
    fields: [{ field: 'name', issue: `required when no ${what} matches` }],
  });
}
