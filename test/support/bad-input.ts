import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { RouteDefinition } from '../../gateway/src/http/route';

/**
 * One malformed request and what it must get: a 4xx envelope, 404 NOT_FOUND (another organization's record), or at
 * least no server error (input some routes may rightly accept, e.g. a repeated list parameter).
 */
export interface Probe {
  name: string;
  method: string;
  path: string;
  rawBody?: string;
  expect: 'client_error' | 'not_found' | 'no_server_error';
}

/** Over the gateway's 1 MiB BODY_LIMIT_BYTES. */
const HUGE = 1_100_000;
const DEPTH = 5_000;

const deepArray = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
const deepObject = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;

/** The fields of an object schema, through refinements and transforms. */
export function shapeOf(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  if (!schema) return {};
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  const def = (schema as unknown as { _zod: { def: { type: string; in?: z.ZodType } } })._zod.def;
  return def.type === 'pipe' && def.in ? shapeOf(def.in) : {};
}

/** The route's path with its parameters from `ids` (by parameter name, then by the segment before it). */
export function fillPath(route: RouteDefinition, ids: Record<string, string>): string {
  const segments = route.path.split('/');
  return segments
    .map((segment, index) => {
      const param = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (!param) return segment;
      const value = ids[param] ?? ids[`${segments[index - 1] ?? ''}/${param}`] ?? ids[segments[index - 1] ?? ''] ?? 'zz_unknown';
      return encodeURIComponent(value);
    })
    .join('/');
}

/** Values of other JSON types than the field takes (at most two). */
function wrongValues(field: z.ZodType): unknown[] {
  const candidates: unknown[] = [12345, true, 'text', [1], { nested: 1 }, null];
  return candidates.filter((value) => !field.safeParse(value).success).slice(0, 2);
}

const stringFields = (shape: Record<string, z.ZodType>): string[] =>
  Object.keys(shape).filter((key) => shape[key]?.safeParse('x').success || shape[key]?.safeParse('x'.repeat(30)).success);

/** Bodies every route that takes one must refuse: malformed, mistyped, huge, deep, injected, polluting, broken Unicode. */
export function bodyProbes(route: RouteDefinition, path: string): Probe[] {
  const shape = shapeOf(route.body);
  const keys = Object.keys(shape);
  const first = keys[0] ?? 'name';
  const probe = (name: string, rawBody: string): Probe => ({ name, method: route.method, path, rawBody, expect: 'client_error' });
  const probes = [
    probe('malformed JSON', '{"name": '),
    probe('JSON array body', '[]'),
    probe('JSON string body', '"text"'),
    probe('JSON null body', 'null'),
    probe('huge body', JSON.stringify({ [first]: 'x'.repeat(HUGE) })),
    probe('deep array in a field', `{"${first}": ${deepArray}}`),
    probe('deep object in a field', `{"${first}": ${deepObject}}`),
    probe('deep object as an unknown field', `{"zz": ${deepObject}}`),
    probe('operator object in a field', JSON.stringify({ [first]: { $gt: '' } })),
    probe('$where key', '{"$where": "1"}'),
    probe('operator key inside a field', `{"${first}": {"$where": "sleep(1000)"}}`),
    probe('__proto__ key', '{"__proto__": {"polluted": true}}'),
    probe('constructor.prototype key', '{"constructor": {"prototype": {"polluted": true}}}'),
    probe('dotted key', '{"a.b": 1, "$set": {"org_id": "org_x"}}'),
  ];
  for (const key of keys) {
    for (const value of wrongValues(shape[key]!))
      probes.push(probe(`wrong type ${key}=${JSON.stringify(value)}`, JSON.stringify({ [key]: value })));
  }
  for (const key of stringFields(shape)) {
    probes.push(probe(`lone surrogate in ${key}`, `{"${key}": "bad \\ud800 text"}`));
    probes.push(probe(`NUL in ${key}`, `{"${key}": "bad \\u0000 text"}`));
    // Longer than any text field takes (the longest take 10,000 characters), well under the body limit.
    probes.push(probe(`very long ${key}`, JSON.stringify({ [key]: 'x'.repeat(50_000) })));
  }
  return probes;
}

/** Query strings every list must refuse: operators, duplicates, bad limits, forged cursors. */
export function queryProbes(route: RouteDefinition, path: string): Probe[] {
  const probe = (name: string, query: string, expect: Probe['expect'] = 'client_error'): Probe => ({
    name,
    method: route.method,
    path: `${path}?${query}`,
    expect,
  });
  const probes = [
    probe('search[$gt]', 'search[$gt]='),
    probe('status[$ne]', 'status[$ne]=x'),
    probe('limit=-1', 'limit=-1'),
    // Documented: larger values are clamped to 100.
    probe('limit=1e9', 'limit=1000000000', 'no_server_error'),
    probe('limit=abc', 'limit=abc'),
    probe('random cursor', `cursor=${randomBytes(48).toString('base64url')}`),
    probe('random cursor with a dot', `cursor=${randomBytes(48).toString('base64url')}.${randomBytes(24).toString('base64url')}`),
    probe('cursor with a NUL', 'cursor=%00'),
  ];
  for (const key of Object.keys(shapeOf(route.query))) {
    probes.push(probe(`${key}[$ne]`, `${key}[$ne]=x`));
    if (key !== 'cursor') probes.push(probe(`${key} twice`, `${key}=a&${key}=b`, 'no_server_error'));
    // Not UTF-8 at all: decoded as U+FFFD, which a free-text parameter may take.
    probes.push(probe(`${key} invalid UTF-8`, `${key}=%ED%A0%80`, 'no_server_error'));
  }
  return probes;
}
