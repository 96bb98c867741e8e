import { AppError, isErrorCode } from '@crm/shared/core';
import { errorObject } from '../http/envelope';
import { z } from 'zod';
import { component, documentedAs } from './registry';

/** The most items one batch upsert takes. */
export const MAX_BATCH_ITEMS = 100;

/**
 * The body of a batch upsert: `items` is checked here only as a list of 1 to 100 entries; each entry is validated on
 * its own by the service, so one bad item answers an error in its result and never fails the batch.
 */
export const batchUpsertBody = (item: z.ZodType) =>
  z.strictObject({
    items: z
      .array(documentedAs(z.unknown(), item))
      .min(1, 'at least 1 item')
      .max(MAX_BATCH_ITEMS, `at most ${MAX_BATCH_ITEMS} items`)
      .describe(`1 to ${MAX_BATCH_ITEMS} items, each matched by external_id, then email, then phone`),
  });

const ItemError = component(
  'BatchItemError',
  z.object({
    type: z.string(),
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
  'The public error object of one failed item, as the error envelope would carry it.',
);

export const BatchItemResult = component(
  'BatchItemResult',
  z.object({
    index: z.number().int().describe('position of the item in `items`'),
    status: z.enum(['created', 'updated', 'unchanged', 'error']),
    id: z.string().nullable().describe('the record written or matched; null when the item failed'),
    error: ItemError.optional().describe('present when status is error'),
  }),
  'The outcome of one item of a batch upsert.',
);

interface ServiceItemResult {
  index: number;
  status: string;
  id?: string | null | undefined;
  error?: { code: string; message: string; details?: Record<string, unknown> | null | undefined } | null | undefined;
}

/** A service's item results in the public shape: each error is the envelope's error object (with its `type`). */
export function publicItemResults(items: ServiceItemResult[]) {
  return items.map(({ index, status, id, error }) => ({
    index,
    status,
    id: id ?? null,
    ...(error ? { error: errorObject(itemError(error)) } : {}),
  }));
}

/** A code the catalogue does not know (none is sent) would be ours: INTERNAL_ERROR, as the error handler answers. */
const itemError = (error: NonNullable<ServiceItemResult['error']>): AppError =>
  isErrorCode(error.code)
    ? new AppError(error.code, error.message, error.details ?? undefined)
    : new AppError('INTERNAL_ERROR', 'This item could not be written; retry it.');
