import { ERROR_CATALOGUE, type ErrorCode } from './catalogue';

export type ErrorDetails = Record<string, unknown>;

/** The one error class of the platform: a catalogue code, a message for humans, optional details. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message?: string, details?: ErrorDetails) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  get httpStatus(): number {
    return ERROR_CATALOGUE[this.code].http;
  }
}

export const notFound = (what = 'record'): AppError => new AppError('NOT_FOUND', `The ${what} does not exist in this organization.`);

export const invalidReference = (field: string, id: string): AppError =>
  new AppError('INVALID_REFERENCE', `${field} refers to a record that does not exist in this organization.`, { field, id });

/** What `answer` resolves to, or null when it is NOT_FOUND (e.g. a record another service removed meanwhile). */
export async function nullIfNotFound<T>(answer: Promise<T>): Promise<T | null> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}
