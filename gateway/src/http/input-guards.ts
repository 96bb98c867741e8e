import { AppError } from '@crm/shared/core';

/**
 * Input no route accepts, refused before the route's own schema sees it.
 *
 * Text: a NUL or an unpaired UTF-16 surrogate (JSON's "\ud800") anywhere in a body, in a value or in a key. gRPC's
 * UTF-8 encoding turns a lone surrogate into U+FFFD, so the services could not even see it: the record would be
 * stored silently altered. NUL is refused too: no field's text needs it, and stores and exports truncate at it.
 *
 * Query parameter names (routes that take a query): every parameter of the API is a plain word, so a name such as
 * `search[$gt]` or `a.b` is an attempt to smuggle an operator or a path; it is refused rather than ignored, so it can
 * never start to mean something if the query parser changes. Other unknown names stay ignored, as before.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const isBroken = (text: string): boolean => text.includes('\u0000') || LONE_SURROGATE.test(text);
const PLAIN_NAME = /^\w+$/;

interface Node {
  value: unknown;
  key: string | null;
  parent: Node | null;
}

/** Walks with a stack rather than recursion, so its cost never depends on JSON_MAX_DEPTH; the path is built only for the answer. */
export function refuseBrokenText(body: unknown): void {
  const stack: Node[] = [{ value: body, key: null, parent: null }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (typeof node.value === 'string') {
      if (isBroken(node.value)) throw brokenText(node);
      continue;
    }
    if (typeof node.value !== 'object' || node.value === null) continue;
    for (const [key, value] of Object.entries(node.value)) {
      if (isBroken(key)) throw brokenText({ value: key, key, parent: node });
      stack.push({ value, key, parent: node });
    }
  }
}

/** VALIDATION_ERROR, which every route with a query already documents. */
export function refuseOperatorNames(query: Record<string, unknown>): void {
  const names = Object.keys(query).filter((name) => !PLAIN_NAME.test(name));
  if (names.length === 0) return;
  const issue = 'is not a query parameter: parameter names are plain words, without brackets, dots or $';
  const fields = names.map((field) => ({ field, issue }));
  throw new AppError('VALIDATION_ERROR', `Invalid request: ${names.map((name) => `${name}: ${issue}`).join('; ')}.`, { fields });
}

function brokenText(node: Node): AppError {
  const path: string[] = [];
  for (let at: Node | null = node; at?.key != null; at = at.parent) path.unshift(at.key);
  const field = path.join('.') || '(body)';
  const issue = 'must not contain NUL characters or unpaired UTF-16 surrogates';
  return new AppError('VALIDATION_ERROR', `Invalid request: ${field}: ${issue}.`, { fields: [{ field, issue }] });
}
