import { AppError, createLogger } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { chainsOf, runBatch } from './batch-upsert';

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

  it('chains the items that may name one record: a key in common (transitively, any case) or the same item', () => {
    expect(
      chainsOf([
        { email: 'Ann@example.com' },
        { phone: '+14155550100' },
        { email: 'ann@example.com ', phone: '+14155550199' },
        { name: 'no key' },
        { external_id: 'erp-7' },
        { phone: '+14155550199', external_id: 'erp-9' },
        { name: 'no key' },
      ]),
    ).toEqual([[0, 2, 5], [1], [3, 6], [4]]);
  });

  it('writes items of different chains at once and the items of one chain one after another', async () => {
    const log: string[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const items = [
      { email: 'a@example.com', name: '1' },
      { email: 'b@example.com' },
      { email: 'a@example.com', name: '2' },
      { phone: '+1415' },
    ];
    const results = await runBatch(items, logger, async (item) => {
      const { name = '', email = '', phone = '' } = item as Record<string, string>;
      log.push(`start ${email}${phone}${name}`);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 10));
      inFlight--;
      log.push(`end ${email}${phone}${name}`);
      return { status: 'created', id: `ct_${email}${phone}` };
    });
    expect(mostInFlight).toBe(3);
    expect(log.indexOf('start a@example.com2')).toBeGreaterThan(log.indexOf('end a@example.com1'));
    expect(results.map((result) => result.index)).toEqual([0, 1, 2, 3]);
  });
});
