import { AppError, createLogger } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { runBatch } from './batch-upsert';

const logger = createLogger('batch-upsert-test', 'silent');

describe('a batch upsert', () => {
  it('answers each item in order, a bad item alone failing, and writes a repeated item once', async () => {
    const written: unknown[] = [];
    const results = await runBatch(
      [{ email: 'a@example.com' }, { email: 'bad' }, { email: 'a@example.com' }, { email: 'bad' }, { email: 'b@example.com' }],
      logger,
      async (item) => {
        written.push(item);
        const email = (item as { email: string }).email;
        if (email === 'bad') throw new AppError('VALIDATION_ERROR', 'email is not an e-mail address.');
        return { status: 'created', id: `ct_${email}` };
      },
    );
    expect(written).toEqual([{ email: 'a@example.com' }, { email: 'bad' }, { email: 'b@example.com' }]);
    expect(results.map(({ index, status, id }) => ({ index, status, id }))).toEqual([
      { index: 0, status: 'created', id: 'ct_a@example.com' },
      { index: 1, status: 'error', id: null },
      { index: 2, status: 'unchanged', id: 'ct_a@example.com' },
      { index: 3, status: 'error', id: null },
      { index: 4, status: 'created', id: 'ct_b@example.com' },
    ]);
    expect(results[3]?.error).toEqual(results[1]?.error);
    expect(results[1]?.error?.code).toBe('VALIDATION_ERROR');
  });

  it('answers a failure of ours as INTERNAL_ERROR for that item alone', async () => {
    const results = await runBatch([{ n: 1 }, { n: 2 }], logger, async (item) => {
      if ((item as { n: number }).n === 1) throw new Error('connection reset');
      return { status: 'updated', id: 'ct_2' };
    });
    expect(results.map((result) => [result.status, result.error?.code ?? null])).toEqual([
      ['error', 'INTERNAL_ERROR'],
      ['updated', null],
    ]);
  });
});
