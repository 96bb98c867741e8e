import { describe, expect, it } from 'vitest';
import { toDocument, toRecord } from './record-mapper';

describe('the record mapper', () => {
  it('renames _id to id and drops the outbox and internal keys', () => {
    const doc = { _id: 'ct_1', name: 'Ada', name_key: 'ada', _outbox: [], _outbox_pending: false, _outbox_lease_owner: 'x', rev: 2 };
    expect(toRecord(doc, ['name_key'])).toEqual({ id: 'ct_1', name: 'Ada', rev: 2 });
  });

  it('turns a record into the document to insert', () => {
    expect(toDocument({ id: 'ct_1', name: 'Ada' })).toEqual({ _id: 'ct_1', name: 'Ada' });
  });
});
