/** Lean documents carry `_id`; the domain speaks `id`. */
export function plain<T extends { _id: string }>(doc: T): Omit<T, '_id'> & { id: string } {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest };
}

/**
 * Escapes user input for use inside a RegExp (search filters). A NUL becomes the escape `\x00`: BSON cannot carry a
 * regular expression with a NUL byte in it (the driver threw, and the search answered 500).
 */
export const escapeRegExp = (value: string): string => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('\0', '\\x00');
