import { EVENT_TYPE_NAMES } from '@crm/shared/schemas';
import { describe, expect, it } from 'vitest';
import { ALL_ROUTES } from '../routes';
import { LOCAL_BASE_URL } from '../config';
import { buildOpenApiDocument } from './build-document';

type Json = Record<string, any>;
const document = buildOpenApiDocument(ALL_ROUTES, LOCAL_BASE_URL) as Json;
const operations = Object.values(document.paths as Json).flatMap((methods) => Object.values(methods as Json)) as Json[];

describe('the OpenAPI document', () => {
  it('has one webhook per subscribable kind, with the delivered envelope and the signature headers', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_TYPE_NAMES].sort());
    const entry = document.webhooks['contact.tag.added'].post as Json;
    expect(entry.parameters.map((p: Json) => p.name)).toEqual(expect.arrayContaining(['X-Webhook-Signature', 'X-Webhook-Timestamp']));
    const schema = entry.requestBody.content['application/json'].schema as Json;
    expect(schema.required).toEqual(['id', 'type', 'created_at', 'api_version', 'data']);
    expect(schema.properties.type.const).toBe('contact.tag.added');
    // data comes from the event catalogue: its schema, its example, the scope that guards the kind.
    expect(schema.properties.data.required).toEqual(['contact', 'tag']);
    expect(schema.properties.data.properties.contact.properties.id.pattern).toBe('^ct_[0-9A-Za-z]{22}$');
    expect(entry.requestBody.content['application/json'].example.data).toEqual({
      contact: { id: expect.stringMatching(/^ct_/), name: 'Maria Oliveira' },
      tag: 'vip',
    });
    expect(entry['x-scope']).toBe('read:contacts');
    expect(Object.keys(entry.responses).sort()).toEqual(['2XX', '410', 'default']);
  });

  it('gives an example to every request body, success answer and error code, and declares the headers sent', () => {
    // The 97 of the catalogue, plus POST /v1/contacts/{id}/merge and POST /v1/contacts/{id}/opt-out (docs/contact-merge.md,
    // docs/events.md), issue 26's 2 batch upserts, 2 event reads and 2 replay routes, and the API keys' list and revoke.
    expect(operations).toHaveLength(107);
    for (const op of operations) {
      if (op.requestBody) expect(op.requestBody.content['application/json'].example, op.operationId).toBeDefined();
      for (const [status, answer] of Object.entries(op.responses as Record<string, Json>)) {
        expect(answer.headers['X-Request-Id'], `${op.operationId} ${status}`).toBeDefined();
        const media = answer.content?.['application/json'];
        if (Number(status) < 300 && media) expect(media.example, op.operationId).toBeDefined();
        if (Number(status) >= 400) expect(Object.keys(media.examples).length, op.operationId).toBeGreaterThan(0);
        if (status === '429') expect(answer.headers['Retry-After']).toBeDefined();
      }
    }
    expect(document.paths['/v1/contacts'].post.responses['201'].headers).toHaveProperty('Idempotent-Replayed');
  });

  it('links a created record to the operations its id fills', () => {
    const links = document.paths['/v1/contacts'].post.responses['201'].links as Json;
    expect(links.getContact).toEqual(expect.objectContaining({ operationId: 'getContact', parameters: { id: '$response.body#/data/id' } }));
    expect(Object.keys(links)).toEqual(expect.arrayContaining(['updateContact', 'deleteContact', 'createContactNote']));
    const noteLinks = document.paths['/v1/contacts/{id}/notes'].post.responses['201'].links as Json;
    expect(noteLinks.updateContactNote.parameters).toEqual({ id: '$request.path.id', noteId: '$response.body#/data/id' });
  });

  it('gives every request body an example the route itself accepts', () => {
    const refused: string[] = [];
    for (const route of ALL_ROUTES.filter((candidate) => candidate.body)) {
      const example = (document.paths[route.path][route.method.toLowerCase()] as Json).requestBody.content['application/json'].example;
      const parsed = route.body!.safeParse(example);
      if (!parsed.success) refused.push(`${route.operationId}: ${JSON.stringify(parsed.error.issues)}`);
    }
    expect(refused).toEqual([]);
  });

  it('states the prefix pattern of path ids', () => {
    const id = (document.paths['/v1/deals/{id}'].get.parameters as Json[]).find((p) => p.name === 'id');
    expect(id?.schema.pattern).toBe('^dl_[0-9A-Za-z]{22}$');
  });
});
