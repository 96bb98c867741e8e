import type { OutboxEntry } from '../outbox/domain-event';
import { outboxOnUpdate } from '../outbox/outbox-fields';

/** An update in MongoDB's operator form: `{ $set: {...}, $inc: {...}, ... }`. */
export type UpdateOperators = { [operator: `$${string}`]: Record<string, unknown> };

/** A record's changed fields (a $set), or operators as they are. */
export type Change<R> = Partial<R> | UpdateOperators;

const isOperators = (change: object): change is UpdateOperators => Object.keys(change).some((key) => key.startsWith('$'));

/** The change in operator form, with the derived keys of the fields it sets (a sort key follows its field). */
export function operatorsOf<R extends object>(
  change: Change<R>,
  derive?: (fields: Partial<R>) => Record<string, unknown>,
): UpdateOperators {
  const operators: UpdateOperators = isOperators(change) ? { ...change } : { $set: { ...(change as Record<string, unknown>) } };
  const set = operators.$set as Partial<R> | undefined;
  if (set && derive) operators.$set = { ...set, ...derive(set) };
  return operators;
}

/** Appends the change's events to the record's outbox in the same single-document update. */
export function withEvents(operators: UpdateOperators, events: OutboxEntry[]): UpdateOperators {
  if (events.length === 0) return operators;
  const outbox = outboxOnUpdate(events);
  return { ...operators, $set: { ...operators.$set, ...outbox.$set }, $push: { ...operators.$push, ...outbox.$push } };
}

/**
 * The one place a record's revision advances. Every write of a revisioned record goes through it, so a
 * read-modify-write conditional on the revision it read (updateAtRevision) notices any change made since.
 */
export function withRevisionBump(operators: UpdateOperators): UpdateOperators {
  return { ...operators, $inc: { ...operators.$inc, rev: 1 } };
}
