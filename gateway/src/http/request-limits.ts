import { AppError, newId, type ErrorCode } from '@crm/shared/core';
import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayConfig } from '../config';
import { errorBody } from './envelope';

/**
 * Limits on what a client may send, outside the body size (Fastify's bodyLimit) and the rate (rate-limit.ts).
 *
 * - Query string: longer than QUERY_MAX_LENGTH or with more than QUERY_MAX_PARAMS parameters answers
 *   414 URI_TOO_LONG: the fault is the size of the URI, whatever the route; checked before the route's own validation.
 * - Request line + headers over HTTP_MAX_HEADER_BYTES: Node refuses them while parsing, before any route; the
 *   client-error handler below still answers the envelope (431 HEADERS_TOO_LARGE) and closes the connection.
 * - Slow clients: HTTP_HEADERS_TIMEOUT_MS for the headers and HTTP_REQUEST_TIMEOUT_MS for the whole request
 *   (slowloris, a trickled body) answer 408 REQUEST_TIMEOUT and close; each costs one socket, never the event loop.
 * - JSON nesting deeper than JSON_MAX_DEPTH: see jsonDepthExceeds.
 */
export function serverLimits(config: GatewayConfig): {
  bodyLimit: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
  clientErrorHandler: (error: NodeJS.ErrnoException, socket: Socket) => void;
} {
  const requestTimeout = config.HTTP_REQUEST_TIMEOUT_MS;
  // Node refuses a headersTimeout above the requestTimeout.
  const headersTimeout = Math.min(config.HTTP_HEADERS_TIMEOUT_MS, requestTimeout);
  return {
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestTimeout,
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    http: {
      headersTimeout,
      requestTimeout,
      maxHeaderSize: config.HTTP_MAX_HEADER_BYTES,
      // Node checks both timeouts on this interval (30 s by default), which would let a slow client stay that much longer.
      connectionsCheckingInterval: Math.min(1_000, Math.floor(headersTimeout / 2)),
    },
    clientErrorHandler: answerClientError,
  };
}

/** Node's client errors (the request never reached Fastify), answered in the envelope like every other error. */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'HEADERS_TOO_LARGE'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'REQUEST_TIMEOUT'
        : 'MALFORMED_REQUEST';
  const appError = new AppError(code);
  const requestId = newId('request');
  const body = JSON.stringify(errorBody(appError, requestId));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${appError.httpStatus} ${STATUS_TEXT[code]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

const STATUS_TEXT: Partial<Record<ErrorCode, string>> = {
  HEADERS_TOO_LARGE: 'Request Header Fields Too Large',
  REQUEST_TIMEOUT: 'Request Timeout',
  MALFORMED_REQUEST: 'Bad Request',
};

/** 414 URI_TOO_LONG when the query string breaks QUERY_MAX_LENGTH or QUERY_MAX_PARAMS. */
export function checkQuery(url: string, limits: { maxLength: number; maxParams: number }): void {
  const start = url.indexOf('?');
  if (start < 0) return;
  const length = url.length - start - 1;
  if (length > limits.maxLength)
    throw new AppError('URI_TOO_LONG', `The query string is longer than ${limits.maxLength} characters.`, {
      max_length: limits.maxLength,
    });
  // Bounded by the length check above.
  const params = url
    .slice(start + 1)
    .split('&')
    .filter(Boolean).length;
  if (params > limits.maxParams)
    throw new AppError('URI_TOO_LONG', `The query string has more than ${limits.maxParams} parameters.`, { max_params: limits.maxParams });
}

/**
 * Whether JSON text nests arrays/objects deeper than `max`, by one pass over the characters (strings skipped),
 * before JSON.parse builds anything: 10,000 levels of `[` cost a scan, not a deep structure that later recursive
 * code (validation, hashing, protobuf, BSON) would walk.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index++; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > max) return true;
    } else if (char === 0x5d || char === 0x7d) depth--;
  }
  return false;
}
