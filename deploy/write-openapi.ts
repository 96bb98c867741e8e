/**
 * Writes the OpenAPI document the gateway serves at /api/docs/openapi.json, built from the same route table, to a
 * file (default .local/openapi.json) without starting anything: `npm run lint:openapi` lints it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { buildOpenApiDocument } from '../gateway/src/openapi/build-document';
import { LOCAL_BASE_URL } from '../gateway/src/config';
import { ALL_ROUTES } from '../gateway/src/routes';

const file = resolve(process.argv[2] ?? '.local/openapi.json');
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(buildOpenApiDocument(ALL_ROUTES, LOCAL_BASE_URL), null, 2)}\n`);
console.log(`wrote ${file}`);
