/** ISO 8601 in UTC with milliseconds and a trailing Z, as every timestamp of the API. */
export const iso = (date: Date): string => date.toISOString();

export const isoOrNull = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);
