/**
 * Escapes user input for use inside a RegExp (search filters). A NUL becomes the escape `\x00`: BSON cannot carry a
 * regular expression with a NUL byte in it (the driver threw, and the search answered 500).
 */
export const escapeRegExp = (value: string): string => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('\0', '\\x00');
