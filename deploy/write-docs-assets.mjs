// Step of `npm run build`, after tsc: the API reference's renderer script (the browser bundle inside the pinned
// @scalar/fastify-api-reference, ~5 MB) written to dist/gateway/assets/scalar.js, taken from the plugin's own
// route. The compiled gateway streams that file (gateway/src/openapi/docs-page.ts) instead of loading the plugin,
// whose module holds the bundle twice as two-byte strings (its source text and the literal): 18.6 MB of heap that
// every running gateway kept, and that V8's heap growth multiplied under load.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import scalarApiReference from '@scalar/fastify-api-reference';
import Fastify from 'fastify';

const target = join(import.meta.dirname, '..', 'dist', 'gateway', 'assets', 'scalar.js');
const app = Fastify();
await app.register(scalarApiReference, { routePrefix: '/reference', configuration: { url: '/openapi.json' } });
const response = await app.inject({ method: 'GET', url: '/reference/js/scalar.js' });
await app.close();
if (response.statusCode !== 200 || response.rawPayload.length < 100_000)
  throw new Error(`@scalar/fastify-api-reference served no renderer script (status ${response.statusCode})`);
mkdirSync(join(target, '..'), { recursive: true });
// Written aside and renamed, so a gateway serving the previous build never streams half a file.
writeFileSync(`${target}.tmp`, response.rawPayload);
renameSync(`${target}.tmp`, target);
