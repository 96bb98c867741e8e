/** A stored document, as the kit handles it: keyed by its `_id`. */
export type StoredDocument = { _id: string } & Record<string, unknown>;
