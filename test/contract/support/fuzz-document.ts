import { operationBindings } from './fuzz-config';

type Json = Record<string, any>;

/**
 * The document the fuzz runs on: the served one, with its examples made real for the fuzz organisation. Schemas,
 * statuses and everything schemathesis checks stay exactly as served; only example values change, because the
 * examples and coverage phases build their requests from them: each id becomes a record of the operation's pool
 * (fuzz-config.ts), and times that must lie ahead (scheduledAt) move to tomorrow. Without this the first two phases
 * would only ever name records that do not exist.
 */
export function fuzzDocument(served: Json, pools: Record<string, string[]>, now = new Date()): Json {
  const document = structuredClone(served);
  const components = (document.components?.schemas ?? {}) as Json;
  for (const methods of Object.values(document.paths as Json)) {
    for (const operation of Object.values(methods as Json) as Json[]) {
      const bindings = operationBindings(operation, components);
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        const value = pools[bindings[`${parameter.in}.${parameter.name}`] ?? '']?.[0];
        if (value !== undefined) parameter.example = value;
      }
      const media = operation.requestBody?.content?.['application/json'] as Json | undefined;
      if (!media || media.example === undefined) continue;
      for (const [key, pool] of Object.entries(bindings)) {
        const value = pools[pool]?.[0];
        if (key.startsWith('body.') && value !== undefined) setAt(media.example, key.slice('body.'.length).split('.'), value);
      }
      retime(media.example, now);
    }
  }
  return document;
}

/** Sets `value` at a binding path (`a.b[*]`) where the example has something there. */
function setAt(target: unknown, segments: string[], value: string): void {
  if (typeof target !== 'object' || target === null) return;
  const [segment, ...rest] = segments;
  if (!segment) return;
  const many = segment.endsWith('[*]');
  const name = many ? segment.slice(0, -3) : segment;
  const record = target as Json;
  if (!(name in record)) return;
  if (rest.length > 0) {
    const next = record[name];
    for (const item of many && Array.isArray(next) ? next : [next]) setAt(item, rest, value);
  } else if (many && Array.isArray(record[name])) record[name] = (record[name] as unknown[]).map(() => value);
  else if (record[name] !== null) record[name] = value;
}

/** Times the API wants in the future: a day from `now`. */
function retime(example: unknown, now: Date): void {
  if (typeof example !== 'object' || example === null) return;
  for (const [key, value] of Object.entries(example as Json)) {
    if (key === 'scheduledAt' && typeof value === 'string') (example as Json)[key] = new Date(now.getTime() + 86_400_000).toISOString();
    else retime(value, now);
  }
}
