import { describe, expect, it } from 'vitest';
import type { RouteDefinition } from './route';
import { createRouteTable } from './route-table';

const route = (method: string, path: string) => ({ method, path }) as unknown as RouteDefinition;
const table = createRouteTable([
  route('GET', '/v1/contacts'),
  route('POST', '/v1/contacts'),
  route('GET', '/v1/contacts/{id}'),
  route('DELETE', '/v1/contacts/{id}'),
  route('POST', '/v1/contacts/batch/upsert'),
]);

describe('the route table', () => {
  it("names a path's methods, literal segments winning over a template's", () => {
    expect(table.allowedMethods('/v1/contacts?limit=5')).toEqual(['GET', 'POST']);
    expect(table.allowedMethods('/v1/contacts/ct_1')).toEqual(['GET', 'DELETE']);
    expect(table.allowedMethods('/v1/nothing')).toBeUndefined();
  });

  it('gives the template a path falls under, whatever the method, for the metrics of requests refused before routing', () => {
    expect(table.templateOf('/v1/contacts/ct_1?x=1')).toBe('/v1/contacts/{id}');
    expect(table.templateOf('/v1/contacts/batch/upsert')).toBe('/v1/contacts/batch/upsert');
    expect(table.templateOf('/v1/contacts')).toBe('/v1/contacts');
    expect(table.templateOf('/v1/nothing')).toBeUndefined();
    // Asked again (remembered), the same answers.
    expect([table.templateOf('/v1/contacts/ct_1'), table.templateOf('/v1/nothing')]).toEqual(['/v1/contacts/{id}', undefined]);
  });
});
