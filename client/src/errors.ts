import type { components } from './generated/api';

/** The error envelope every operation answers on failure: `{error: {type, code, message, details?}, meta}`. */
export type ErrorEnvelope = components['schemas']['Error'];
/** The stable error codes of the catalogue (`NOT_FOUND`, `VALIDATION_ERROR`, …). */
export type ErrorCode = ErrorEnvelope['error']['code'];

/** A refused or failed call: the HTTP status and the API's error envelope, flattened. */
export class CrmApiError extends Error {
  override readonly name = 'CrmApiError';
  readonly status: number;
  /** The catalogue code, or `UNKNOWN` when the answer was not the API's envelope (a proxy's 502, say). */
  readonly code: ErrorCode | 'UNKNOWN';
  readonly type: string;
  readonly details: Record<string, unknown> | undefined;
  /** The gateway's request id (also in the `X-Request-Id` header): quote it when reporting a problem. */
  readonly request_id: string | undefined;

  constructor(status: number, body: unknown, requestId?: string | null) {
    const envelope = isErrorEnvelope(body) ? body : undefined;
    super(envelope?.error.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = envelope?.error.code ?? 'UNKNOWN';
    this.type = envelope?.error.type ?? 'unknown';
    this.details = envelope?.error.details;
    this.request_id = envelope?.meta.request_id ?? requestId ?? undefined;
  }
}

function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as { error?: { code?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof (body as { meta?: unknown }).meta === 'object';
}
