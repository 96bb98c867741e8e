import { describe, expect, it } from 'vitest';
import { classify, requireCapabilities } from './store';

describe('the storage seam', () => {
  it('knows FerretDB lacks isolated updates, transactions and TTL, and refuses it', () => {
    const store = classify({ version: '7.0.77', ferretdbVersion: 'v1.24.2' }, {});
    expect(store).toEqual({
      server: 'FerretDB',
      version: 'v1.24.2',
      capabilities: { isolatedUpdates: false, transactions: false, ttlIndexes: false },
      readsWholeMatch: true,
      routesByLeadingFields: false,
    });
    expect(() => requireCapabilities(store, ['isolatedUpdates', 'ttlIndexes'])).toThrow(
      /FerretDB v1\.24\.2 lacks isolatedUpdates, ttlIndexes/,
    );
  });

  it('takes SecantusDB (a one-node replica set) and MongoDB replica sets as isolating, with transactions and TTL', () => {
    expect(classify({ version: '8.2.11', secantusVersion: '0.5.3-beta.196' }, { setName: 'secantus' })).toEqual({
      server: 'SecantusDB',
      version: '0.5.3-beta.196',
      capabilities: { isolatedUpdates: true, transactions: true, ttlIndexes: true },
      readsWholeMatch: true,
      routesByLeadingFields: true,
    });
    expect(classify({ version: '7.0.14' }, { setName: 'rs0' }).capabilities.transactions).toBe(true);
    // MongoDB's index scan stops at a find's limit: its pages need no window.
    expect(classify({ version: '7.0.14' }, { setName: 'rs0' }).readsWholeMatch).toBe(false);
    // MongoDB plans a filter by cost: it needs no shaping for its router.
    expect(classify({ version: '7.0.14' }, { setName: 'rs0' }).routesByLeadingFields).toBe(false);
    expect(classify({ version: '7.0.14' }, { msg: 'isdbgrid' }).capabilities.transactions).toBe(true);
  });

  it('accepts a standalone MongoDB (no transactions, which the code does not need)', () => {
    const store = classify({ version: '7.0.14' }, {});
    expect(store.capabilities).toEqual({ isolatedUpdates: true, transactions: false, ttlIndexes: true });
    expect(() => requireCapabilities(store, ['isolatedUpdates', 'ttlIndexes'])).not.toThrow();
  });
});
