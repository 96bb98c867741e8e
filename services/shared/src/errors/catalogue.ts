import { status as GrpcStatus } from '@grpc/grpc-js';

/** Every public error code, its HTTP status and the gRPC status a service answers with. Codes never change. */
export const ERROR_CATALOGUE = {
  MISSING_API_KEY: {
    http: 401,
    grpc: GrpcStatus.UNAUTHENTICATED,
    message: 'No API key was sent. Send the header Authorization: Bearer <API_KEY>.',
  },
  INVALID_API_KEY_FORMAT: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED, message: 'The API key must begin with sk_live_.' },
  INVALID_API_KEY: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED, message: 'The API key is invalid, expired or revoked.' },
  INSUFFICIENT_SCOPES: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED, message: 'The API key lacks a scope this route needs.' },
  PLAN_RESTRICTION: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED, message: "This feature is not included in the organization's plan." },
  INVALID_ID: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, message: 'The id has an invalid format.' },
  NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND, message: 'The record does not exist in this organization.' },
  UNKNOWN_FIELDS: { http: 422, grpc: GrpcStatus.INVALID_ARGUMENT, message: 'The body has fields this route does not accept.' },
  INVALID_REFERENCE: {
    http: 422,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    message: 'A referenced record is invalid, does not exist or belongs to another organization.',
  },
  INTERNAL_ERROR: {
    http: 500,
    grpc: GrpcStatus.INTERNAL,
    message: 'An internal error occurred. Retry later; if it persists, contact support with the request id.',
  },
  COMPANY_HAS_LINKS: { http: 403, grpc: GrpcStatus.FAILED_PRECONDITION, message: 'The company still has linked contacts or deals.' },
  INVALID_STATUS: {
    http: 422,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    message: 'The record is in a status that does not allow this action.',
  },
  MIXED_PROVIDERS: {
    http: 422,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    message: 'QR-code and official instances cannot be mixed in one broadcast.',
  },
  MISSING_MESSAGE: { http: 400, grpc: GrpcStatus.FAILED_PRECONDITION, message: 'The broadcast has no message.' },
  MISSING_CLOUD_TEMPLATE: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION, message: 'An official broadcast needs an approved template.' },
  TEMPLATE_NOT_FOUND: {
    http: 422,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    message: 'The template does not exist, or is not approved for this number and language.',
  },
  TEMPLATE_NOT_APPROVED: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION, message: 'The template exists but is not approved.' },
  TEMPLATE_ON_QRCODE_BROADCAST: {
    http: 422,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    message: 'A template cannot be used on a QR-code broadcast.',
  },
  TEMPLATE_SEND_ERROR: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION, message: 'The cloud provider refused the send.' },
  TEMPLATE_NOT_CONFIRMED: { http: 502, grpc: GrpcStatus.UNAVAILABLE, message: 'The cloud provider did not confirm the send.' },
  CHATAPP_INSTANCE_RATE_LIMIT: {
    http: 429,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    message: 'The number is sending too fast; retry after the indicated time.',
  },
  SOCIALMSG_PAGE_RATE_LIMIT: {
    http: 429,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    message: 'The page is sending too fast; retry after the indicated time.',
  },
  VALIDATION_ERROR: {
    http: 422,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    message: 'A field or query value is missing, of the wrong type, out of range or outside its allowed values.',
  },
  INVALID_JSON: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, message: 'The body is not valid JSON, or not a JSON object.' },
  INVALID_CURSOR: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    message: 'The cursor is malformed or expired, or the filters changed since it was issued.',
  },
  ROUTE_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND, message: 'No such route.' },
  METHOD_NOT_ALLOWED: {
    http: 405,
    grpc: GrpcStatus.UNIMPLEMENTED,
    message: 'This method is not allowed on this path; see the Allow header.',
  },
  RATE_LIMITED: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED, message: 'Too many requests; retry after the indicated time.' },
  IDEMPOTENCY_KEY_REUSED: {
    http: 422,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    message: 'This Idempotency-Key was already used within 24 hours with another route or body.',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    http: 409,
    grpc: GrpcStatus.ABORTED,
    message: 'The first request with this Idempotency-Key is still running; retry shortly.',
  },
  DUPLICATE_CONTACT: {
    http: 409,
    grpc: GrpcStatus.ALREADY_EXISTS,
    message: 'The e-mail, phone or external_id is already on another contact.',
  },
  DUPLICATE_COMPANY: { http: 409, grpc: GrpcStatus.ALREADY_EXISTS, message: 'The external_id is already on another company.' },
  STAGE_HAS_DEALS: { http: 403, grpc: GrpcStatus.FAILED_PRECONDITION, message: 'The stage still holds deals.' },
  WARMUP_LIMIT_EXCEEDED: {
    http: 422,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    message: "The volume is above an instance's warm-up limit; resend with confirmWarmupOverride: true to force it.",
  },
  WEBHOOK_LIMIT_EXCEEDED: {
    http: 422,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    message: 'The organization has as many webhook subscriptions as it may have; delete one first.',
  },
  CONTACT_CHANNEL_UNAVAILABLE: {
    http: 422,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    message: 'The contact has no identifier on the requested channel.',
  },
  OUTSIDE_MESSAGING_WINDOW: {
    http: 422,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    message: "Free text to an official number is allowed only within 24 hours of the contact's last message; send a template.",
  },
  CHANNEL_DISCONNECTED: { http: 409, grpc: GrpcStatus.FAILED_PRECONDITION, message: 'The number or page is offline.' },
  FEATURE_DISCONTINUED: {
    http: 410,
    grpc: GrpcStatus.UNIMPLEMENTED,
    message:
      'Message credits are discontinued. Charges for official-channel messages are billed by the cloud provider directly to your account; sending no longer needs credits.',
  },
  PAYLOAD_TOO_LARGE: { http: 413, grpc: GrpcStatus.INVALID_ARGUMENT, message: 'The body is larger than the limit this API accepts.' },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, grpc: GrpcStatus.INVALID_ARGUMENT, message: 'Bodies must be sent as application/json.' },
  SERVICE_UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE, message: 'A backing service is unavailable; retry shortly.' },
  // Request limits of the gateway's HTTP server (gateway/src/http/request-limits.ts); no service sends them.
  URI_TOO_LONG: {
    http: 414,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    message: 'The query string is longer, or has more parameters, than this API accepts.',
  },
  HEADERS_TOO_LARGE: {
    http: 431,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    message: 'The request line and headers are larger than this API accepts.',
  },
  REQUEST_TIMEOUT: {
    http: 408,
    grpc: GrpcStatus.DEADLINE_EXCEEDED,
    message: 'The request was not received in time; the connection is closed.',
  },
  MALFORMED_REQUEST: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, message: 'The request is not well-formed HTTP.' },
  UPSTREAM_TIMEOUT: {
    http: 504,
    grpc: GrpcStatus.DEADLINE_EXCEEDED,
    message: 'A backing service did not answer within the request deadline; retry shortly.',
  },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** `error.type` by HTTP status (catalogue §5.3). */
const TYPE_BY_HTTP: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'invalid_request',
  409: 'conflict',
  410: 'gone',
  413: 'invalid_request',
  415: 'invalid_request',
  422: 'unprocessable',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'upstream_error',
  503: 'unavailable',
  // Too slow is, to a client, the same as down: retry later.
  504: 'unavailable',
};

/** Every `error.type` the API sends. */
export const ERROR_TYPES = [...new Set([...Object.values(TYPE_BY_HTTP), 'invalid_request', 'internal_error'])];

export function errorType(httpStatus: number): string {
  return TYPE_BY_HTTP[httpStatus] ?? (httpStatus >= 500 ? 'internal_error' : 'invalid_request');
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
}
