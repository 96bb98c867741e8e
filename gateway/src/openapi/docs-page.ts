import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createReadStream, existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';

/** Where the renderer's own routes live (its bundled script: `${SCALAR_PREFIX}/js/scalar.js`). */
const SCALAR_PREFIX = '/api/docs/scalar';
const DOCUMENT_URL = '/api/docs/openapi.json';

/**
 * The page loads nothing but this gateway's own files: the renderer's script and its configuration (no inline
 * script), the document, and the API itself for "Test Request". The renderer sets inline styles (Vue), hence
 * 'unsafe-inline' for styles only; fonts are the system's (withDefaultFonts: false), so no font host either.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>CRM Public API v1 — reference</title>
  <link rel="icon" href="data:,">
</head>
<body>
  <noscript>This reference needs JavaScript. The description it renders: <a href="${DOCUMENT_URL}">${DOCUMENT_URL}</a> (OpenAPI 3.1).</noscript>
  <div id="reference"></div>
  <script src="${SCALAR_PREFIX}/js/scalar.js"></script>
  <script src="/api/docs/reference.js"></script>
</body>
</html>
`;

/**
 * Scalar's options: the served document, no call to any Scalar service (telemetry, fonts, the AI agent, the request
 * proxy: "Test Request" goes straight to this origin), the bearer scheme preselected so a pasted key is sent.
 */
const CONFIGURATION = {
  url: DOCUMENT_URL,
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  hideClientButton: false,
  authentication: { preferredSecurityScheme: 'bearerAuth' },
  metaData: { title: 'CRM Public API v1 — reference' },
};

const SCRIPT = `Scalar.createApiReference('#reference', ${JSON.stringify(CONFIGURATION)});\n`;

function documentHeaders(reply: FastifyReply, cacheSeconds: number): FastifyReply {
  return reply
    .header('content-security-policy', DOCS_CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', cacheSeconds > 0 ? `public, max-age=${cacheSeconds}` : 'no-cache');
}

/**
 * The renderer's script as `npm run build` wrote it (deploy/write-docs-assets.mjs): dist/gateway/assets/scalar.js
 * beside the compiled gateway. Streamed from disk on each (rare, browser-cached) request: loading the plugin instead
 * would keep its 5 MB bundle on the heap as 18.6 MB of two-byte strings for the life of the process.
 */
const SCRIPT_FILE = resolve(__dirname, '../../assets/scalar.js');

/**
 * `/api/docs`: the interactive reference — search, every operation with its request and response schemas and
 * examples, the webhook payloads, and "Test Request" — rendered in the browser by Scalar's API reference from
 * `/api/docs/openapi.json`. The renderer comes from the pinned npm package @scalar/fastify-api-reference, whose
 * bundled script this gateway serves itself: nothing is fetched from a CDN (a cluster may have no internet).
 */
export function registerDocsPage(app: FastifyInstance): void {
  app.get('/api/docs', async (_request, reply) => documentHeaders(reply, 0).type('text/html; charset=utf-8').send(PAGE));
  app.get('/api/docs/reference.js', async (_request, reply) =>
    documentHeaders(reply, 0).type('application/javascript; charset=utf-8').send(SCRIPT),
  );
  if (!existsSync(SCRIPT_FILE)) return registerScalarPlugin(app);
  app.get(`${SCALAR_PREFIX}/js/scalar.js`, async (_request, reply) => {
    // Its size at each request: a build may replace the file (renamed into place) under a running gateway.
    const { size } = await stat(SCRIPT_FILE);
    return documentHeaders(reply, 3_600)
      .type('application/javascript; charset=utf-8')
      .header('content-length', size)
      .send(createReadStream(SCRIPT_FILE));
  });
  // The plugin's own page (with or without the slash: the router ignores it), redirected as when the plugin serves it.
  app.get(`${SCALAR_PREFIX}/`, async (_request, reply) => reply.redirect('/api/docs', 302));
}

/** Running from the TypeScript sources (CRM_RUN_FROM_SOURCE=1, no build): the plugin serves its script itself. */
function registerScalarPlugin(app: FastifyInstance): void {
  void app.register(import('@scalar/fastify-api-reference'), {
    routePrefix: SCALAR_PREFIX,
    configuration: { url: DOCUMENT_URL },
    hooks: {
      // Only its script is used; its own page (an inline script) sends people to /api/docs instead.
      onRequest: (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        if (!request.url.startsWith(`${SCALAR_PREFIX}/js/`)) return void reply.redirect('/api/docs', 302);
        documentHeaders(reply, 3_600);
        done();
      },
    },
  });
}
