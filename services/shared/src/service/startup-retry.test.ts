import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { UnsupportedStoreError } from '../mongo/store';
import { startupRetry } from './startup-retry';

const logger = createLogger('test', 'silent');

describe('the start-up retry', () => {
  it('waits for a dependency that is still starting', async () => {
    let tries = 0;
    const answer = await startupRetry(logger, 'the database', async () => {
      if (++tries < 3) throw new Error('connect ECONNREFUSED');
      return 'connected';
    });
    expect(answer).toBe('connected');
    expect(tries).toBe(3);
  });

  it('refuses at once a store that lacks what the code needs', async () => {
    let tries = 0;
    const failure = startupRetry(logger, 'the database', async () => {
      tries++;
      throw new UnsupportedStoreError('FerretDB v1.24 lacks isolatedUpdates');
    });
    await expect(failure).rejects.toBeInstanceOf(UnsupportedStoreError);
    expect(tries).toBe(1);
  });
});
