import { AppError } from '@crm/shared/core';
import type { FastifyInstance } from 'fastify';
import { refuseBrokenText } from './input-guards';
import { jsonDepthExceeds } from './request-limits';

/**
 * Request bodies (README "Request bodies"). Parsing never fails a request by itself: a route that takes no body
 * ignores whatever was sent (the discontinued routes answer 410 even to garbage), so a body that cannot be used is
 * kept as a RefusedBody and thrown only by routes that read one (readBody).
 *
 * - No bytes and no Content-Type: no body. A route whose fields are all optional reads it as `{}`; a route with a
 *   required field answers 400 INVALID_JSON (the document marks that body required).
 * - Content-Type application/json (or `+json`), UTF-8: the text must be one JSON object. Empty, only whitespace, a
 *   byte order mark, truncated or otherwise invalid JSON, too deep, or a JSON value that is not an object (an array,
 *   a string, a number, true/false, null): 400 INVALID_JSON, on every route with a body.
 * - Any other Content-Type, a charset other than UTF-8, or bytes with no Content-Type: 415 UNSUPPORTED_MEDIA_TYPE.
 */
export class RefusedBody {
  constructor(readonly error: AppError) {}
}

/** application/json and the structured `+json` types (application/merge-patch+json, …). */
const JSON_MEDIA_TYPES = /^application\/(?:[\w.-]+\+)?json\b/i;
const JSON_WHITESPACE_ONLY = /^[\t\n\r ]+$/;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

const invalidJson = (message: string) => new RefusedBody(new AppError('INVALID_JSON', message));

const describe = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/** The parsed JSON object, or the refusal it deserves. */
export function parseJsonBody(text: string, contentType: string | undefined, maxDepth: number): unknown {
  const charset = CHARSET.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    return new RefusedBody(new AppError('UNSUPPORTED_MEDIA_TYPE', `Bodies must be UTF-8 JSON; charset=${charset} is not accepted.`));
  if (text === '') return invalidJson('The body is empty: send a JSON object, or no body and no Content-Type where it is optional.');
  if (JSON_WHITESPACE_ONLY.test(text)) return invalidJson('The body is only whitespace: send a JSON object.');
  if (text.charCodeAt(0) === 0xfeff) return invalidJson('The body starts with a byte order mark (U+FEFF): send JSON without it.');
  if (jsonDepthExceeds(text, maxDepth)) return invalidJson('The body nests arrays or objects too deeply.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalidJson('The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return invalidJson(`The body must be a JSON object, not ${describe(value)}.`);
  return value;
}

/** Installs the only two parsers: JSON, and a refusal for every other media type. */
export function registerBodyParsers(app: FastifyInstance, maxDepth: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_MEDIA_TYPES, { parseAs: 'string' }, (request, raw, done) =>
    done(null, parseJsonBody(String(raw), request.headers['content-type'], maxDepth)),
  );
  // Also reached by bytes sent without a Content-Type.
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, _raw, done) =>
    done(null, new RefusedBody(new AppError('UNSUPPORTED_MEDIA_TYPE'))),
  );
}

/** The body a route with a body schema validates: the parsed object, `{}` for no body where that is allowed. */
export function readBody(raw: unknown, required: boolean): unknown {
  if (raw instanceof RefusedBody) throw raw.error;
  if (raw === undefined) {
    if (required) throw new AppError('INVALID_JSON', 'This route takes a JSON object body; none was sent.');
    return {};
  }
  refuseBrokenText(raw);
  return raw;
}
