import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error';
import { retryOnConflict, WriteConflict } from './conflicts';

describe('the conflict policy', () => {
  it('runs the attempt again while it loses a conflict, and answers what the winning attempt answers', async () => {
    let attempts = 0;
    const result = await retryOnConflict(async () => {
      attempts++;
      if (attempts < 4) throw new WriteConflict('contact');
      return 'written';
    });
    expect(result).toBe('written');
    expect(attempts).toBe(4);
  });

  it('gives up after a bounded number of retries with 503 SERVICE_UNAVAILABLE, never a 500', async () => {
    let attempts = 0;
    const failure = await retryOnConflict(async () => {
      attempts++;
      throw new WriteConflict('contact');
    }).catch((error: unknown) => error);
    expect(attempts).toBe(41);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      httpStatus: 503,
      message: 'The contact changed too often concurrently; retry.',
    });
  });

  it('does not retry other errors', async () => {
    let attempts = 0;
    const failure = await retryOnConflict(async () => {
      attempts++;
      throw new AppError('NOT_FOUND');
    }).catch((error: unknown) => error);
    expect(attempts).toBe(1);
    expect(failure).toMatchObject({ code: 'NOT_FOUND' });
  });
});
