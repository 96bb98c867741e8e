import { newId, type ErrorCode } from '@crm/shared';
import { idSchemaKinds } from '@crm/shared/schemas';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { bodyRequired, type RouteDefinition } from '../../gateway/src/http/route';
import { ALL_ROUTES } from '../../gateway/src/routes';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { testSystem } from '../support/system';

/**
 * Every route that takes a body, from the route table (a new route is covered without writing anything), against the
 * bodies no route may accept (README "Request bodies"). The path ids are well-formed but made up: the body is refused
 * before any record is looked up, so the answer is the body's refusal, never NOT_FOUND.
 */
interface BadBody {
  name: string;
  body?: string;
  contentType?: string;
  code: ErrorCode;
}

const BAD_BODIES: BadBody[] = [
  { name: 'empty, sent as JSON', body: '', contentType: 'application/json', code: 'INVALID_JSON' },
  { name: 'only spaces', body: '   ', contentType: 'application/json', code: 'INVALID_JSON' },
  { name: 'a lone \\r', body: '\r', contentType: 'application/json', code: 'INVALID_JSON' },
  { name: 'JSON whitespace', body: ' \t\r\n', contentType: 'application/json', code: 'INVALID_JSON' },
  { name: 'a UTF-8 byte order mark', body: '\ufeff{}', contentType: 'application/json', code: 'INVALID_JSON' },
  { name: 'truncated JSON', body: '{"name": "Ad', contentType: 'application/json', code: 'INVALID_JSON' },
  { name: 'a JSON string', body: '"Ada"', contentType: 'application/json', code: 'INVALID_JSON' },
  { name: 'a JSON number', body: '1', contentType: 'application/json', code: 'INVALID_JSON' },
  { name: 'JSON true', body: 'true', contentType: 'application/json', code: 'INVALID_JSON' },
  { name: 'JSON null', body: 'null', contentType: 'application/json', code: 'INVALID_JSON' },
  { name: 'a JSON array', body: '[{}]', contentType: 'application/json', code: 'INVALID_JSON' },
  { name: 'text/plain', body: '{}', contentType: 'text/plain', code: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'a form', body: 'name=Ada', contentType: 'application/x-www-form-urlencoded', code: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'JSON in UTF-16', body: '{}', contentType: 'application/json; charset=utf-16', code: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'bytes without a Content-Type', body: '{}', code: 'UNSUPPORTED_MEDIA_TYPE' },
];

/** The route's path with a made-up, well-formed id for each id parameter (and a plain word for the others). */
function madeUpPath(route: RouteDefinition): string {
  const shape = (route.params as z.ZodObject | undefined)?.shape ?? {};
  return route.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const kind = idSchemaKinds.get(shape[name] as z.ZodType);
    return kind ? newId(kind) : 'vip';
  });
}

const BODY_ROUTES = ALL_ROUTES.filter((route) => route.body);

/** Sends bytes as they are: fetch would label a string body text/plain, so bytes without a type go as a buffer. */
async function send(org: TestOrg, method: string, path: string, bad: BadBody) {
  const headers: Record<string, string> = { authorization: `Bearer ${org.key}` };
  if (bad.contentType !== undefined) headers['content-type'] = bad.contentType;
  const body = bad.body === undefined ? undefined : bad.contentType === undefined ? new TextEncoder().encode(bad.body) : bad.body;
  const response = await fetch(`${testSystem().baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, requestId: response.headers.get('x-request-id'), text, json: JSON.parse(text) as any };
}

describe('request bodies on every route that takes one', () => {
  it('covers every route with a body in the route table', () => {
    expect(BODY_ROUTES.length).toBeGreaterThanOrEqual(37);
  });

  it('answers each unusable body 400 INVALID_JSON or 415 UNSUPPORTED_MEDIA_TYPE in the error envelope', { timeout: 60_000 }, async () => {
    const org = await createTestOrg({ plan: 'enterprise' });
    const wrong: string[] = [];
    for (const route of BODY_ROUTES) {
      const path = madeUpPath(route);
      await Promise.all(
        BAD_BODIES.map(async (bad) => {
          const answer = await send(org, route.method, path, bad);
          const code = answer.json?.error?.code;
          const enveloped = typeof answer.json?.error?.message === 'string' && answer.json?.meta?.request_id === answer.requestId;
          const status = bad.code === 'INVALID_JSON' ? 400 : 415;
          if (answer.status !== status || code !== bad.code || !enveloped)
            wrong.push(`${route.method} ${route.path} [${bad.name}]: ${answer.status} ${answer.text.slice(0, 160)}`);
        }),
      );
    }
    expect(wrong).toEqual([]);
  });

  it(
    'reads no body as {} where every field is optional, and answers 400 INVALID_JSON where one is required',
    { timeout: 30_000 },
    async () => {
      const org = await createTestOrg({ plan: 'enterprise' });
      const wrong: string[] = [];
      await Promise.all(
        BODY_ROUTES.map(async (route) => {
          const answer = await org.raw.request(route.method, madeUpPath(route));
          // Optional bodies go on to the record lookup, which the made-up id fails.
          const expected = bodyRequired(route) ? 'INVALID_JSON' : 'NOT_FOUND';
          if (answer.body?.error?.code !== expected)
            wrong.push(`${route.method} ${route.path}: ${answer.status} ${answer.text.slice(0, 160)}`);
        }),
      );
      expect(wrong).toEqual([]);
    },
  );

  it('answers the PATCH of a stage whose body is a lone \\r 400, as for every route (issue #19)', async () => {
    const org = await createTestOrg({ plan: 'enterprise' });
    const funnel = await org.client.POST('/v1/funnels', { body: { name: 'Sales', stages: [{ name: 'Lead' }] } });
    const { id, stages } = funnel.data!.data;
    const answer = await org.raw.request('PATCH', `/v1/funnels/${id}/stages/${stages[0]!.id}`, {
      rawBody: '\r',
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request', code: 'INVALID_JSON' });
    const unchanged = await org.client.GET('/v1/funnels/{id}', { params: { path: { id } } });
    expect(unchanged.data!.data.stages[0]).toMatchObject({ name: 'Lead' });
  });
});
