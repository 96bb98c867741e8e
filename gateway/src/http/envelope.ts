import { AppError, ERROR_CATALOGUE, errorType } from '@crm/shared/core';

export const one = (data: unknown, requestId: string) => ({ data, meta: { request_id: requestId } });

export function list(data: unknown[], meta: { total: number; has_more: boolean; next_cursor?: string }, requestId: string) {
  const { next_cursor, ...rest } = meta;
  // next_cursor is omitted on the last page (spec §8 rule 2).
  return { data, meta: { ...rest, ...(next_cursor ? { next_cursor } : {}), request_id: requestId } };
}

/** The §7 error envelope. INSUFFICIENT_SCOPES also carries its three lists at the top of `error` (spec §5). */
export function errorBody(error: AppError, requestId: string) {
  return { error: errorObject(error), meta: { request_id: requestId } };
}

/** The public error object of the envelope (also each failed item of a batch upsert). */
export function errorObject(error: AppError) {
  const extra = error.code === 'INSUFFICIENT_SCOPES' && error.details ? error.details : {};
  return {
    type: errorType(ERROR_CATALOGUE[error.code].http),
    code: error.code,
    message: error.message,
    ...(error.details ? { details: error.details } : {}),
    ...extra,
  };
}
