import { AppError } from '@crm/shared/core';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { readBody, registerBodyParsers } from './request-body';

/** The parsers on a bare Fastify, so the bytes go through Node's and Fastify's HTTP handling as in the gateway. */
const app = Fastify();
registerBodyParsers(app, 32);
for (const required of [true, false]) {
  app.post(`/${required ? 'required' : 'optional'}`, async (request, reply) => {
    try {
      return { body: readBody(request.body, required) };
    } catch (error) {
      const refusal = error as AppError;
      return reply.code(refusal.httpStatus).send({ code: refusal.code, message: refusal.message });
    }
  });
}
afterAll(() => app.close());

const send = async (path: string, payload: string | undefined, contentType?: string) => {
  const answer = await app.inject({ method: 'POST', url: path, payload, headers: contentType ? { 'content-type': contentType } : {} });
  return { status: answer.statusCode, body: answer.json() as { code?: string; message?: string; body?: unknown } };
};

describe('request bodies', () => {
  it.each([
    ['empty', ''],
    ['a space', ' '],
    ['a carriage return', '\r'],
    ['whitespace of every JSON kind', ' \t\r\n'],
    ['a byte order mark', '\ufeff{}'],
    ['truncated JSON', '{"name": "Ada'],
    ['a string', '"text"'],
    ['a number', '42'],
    ['true', 'true'],
    ['null', 'null'],
    ['an array', '[{"name": "Ada"}]'],
    ['too deep', `{"a":${'['.repeat(40)}${']'.repeat(40)}}`],
  ])('refuses %s sent as JSON with 400 INVALID_JSON, whether or not the route needs a body', async (_name, payload) => {
    for (const path of ['/required', '/optional']) {
      const answer = await send(path, payload, 'application/json');
      expect(answer, path).toMatchObject({ status: 400, body: { code: 'INVALID_JSON' } });
    }
  });

  it.each([
    ['text/plain', '{}'],
    ['application/jsonp', '{}'],
    ['application/x-www-form-urlencoded', 'name=Ada'],
    ['application/x-www-form-urlencoded', ''],
    ['application/json; charset=utf-16', '{}'],
    ['application/json; charset=latin1', '{}'],
  ])('refuses %s (%j) with 415 UNSUPPORTED_MEDIA_TYPE', async (contentType, payload) => {
    expect(await send('/optional', payload, contentType)).toMatchObject({ status: 415, body: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('refuses bytes sent without a Content-Type with 415', async () => {
    const answer = await app.inject({ method: 'POST', url: '/optional', payload: Buffer.from('{}') });
    expect(answer.statusCode).toBe(415);
  });

  it('reads no body as {} where every field is optional, and refuses it where one is required', async () => {
    expect(await send('/optional', undefined)).toEqual({ status: 200, body: { body: {} } });
    expect(await send('/required', undefined)).toMatchObject({ status: 400, body: { code: 'INVALID_JSON' } });
  });

  it('accepts a JSON object, with UTF-8 or no charset, and JSON whitespace around it', async () => {
    expect(await send('/required', ' {"name":"Ada"}\r\n', 'application/json')).toEqual({ status: 200, body: { body: { name: 'Ada' } } });
    expect(await send('/required', '{"a":1}', 'application/json; charset=UTF-8')).toEqual({ status: 200, body: { body: { a: 1 } } });
    expect(await send('/required', '{"a":1}', 'application/merge-patch+json')).toEqual({ status: 200, body: { body: { a: 1 } } });
  });
});
