/**
 * The domain speaks JSON's `null`; proto3 messages speak "absent" (undefined). `Nullable<T>` is a message type
 * whose optional fields also accept null, and `dropNulls` turns such a value into the message.
 */
export type Nullable<T> = T extends (infer U)[]
  ? Nullable<U>[]
  : T extends object
    ? { [K in keyof T]: undefined extends T[K] ? Nullable<T[K]> | null : Nullable<T[K]> }
    : T;

/**
 * Fields holding google.protobuf Struct / Value / ListValue: JSON data whose inner nulls are meaningful and
 * survive encoding, so they are not descended into.
 */
const JSON_VALUED_FIELDS = new Set(['custom_fields', 'options', 'default_value', 'value', 'body', 'data', 'previous']);

export function dropNulls<T>(value: Nullable<T>): T {
  return strip(value) as T;
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object' || value instanceof Date || Buffer.isBuffer(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null || field === undefined) continue;
    out[key] = JSON_VALUED_FIELDS.has(key) ? field : strip(field);
  }
  return out;
}
