import { describe, expect, it } from 'vitest';
import { newEvent } from '../outbox/domain-event';
import { operatorsOf, withEvents, withRevisionBump } from './update-document';

describe('update documents of the storage kit', () => {
  it('turns a record change into a $set with the derived keys of the fields it sets', () => {
    const derive = (fields: { name?: string }) => (fields.name ? { name_key: fields.name.toLowerCase() } : {});
    expect(operatorsOf<{ name: string; age: number }>({ name: 'Ada' }, derive)).toEqual({ $set: { name: 'Ada', name_key: 'ada' } });
    expect(operatorsOf<{ name: string; age: number }>({ age: 3 }, derive)).toEqual({ $set: { age: 3 } });
  });

  it('keeps operators as they are', () => {
    expect(operatorsOf({ $inc: { n: 1 }, $max: { at: 2 } })).toEqual({ $inc: { n: 1 }, $max: { at: 2 } });
  });

  it('appends events to the outbox in the same update and marks the record pending', () => {
    const event = newEvent('org_1', 'contact.tag.added', { contact: { id: 'ct_1', name: 'One' }, tag: 'vip' });
    expect(withEvents({ $set: { a: 1 }, $push: { tags: 'x' } }, [event])).toEqual({
      $set: { a: 1, _outbox_pending: true },
      $push: { tags: 'x', _outbox: { $each: [event] } },
    });
    expect(withEvents({ $set: { a: 1 } }, [])).toEqual({ $set: { a: 1 } });
  });

  it('bumps the revision by one, beside other increments', () => {
    expect(withRevisionBump({ $set: { a: 1 } })).toEqual({ $set: { a: 1 }, $inc: { rev: 1 } });
    expect(withRevisionBump({ $inc: { unread: 1 } })).toEqual({ $inc: { unread: 1, rev: 1 } });
  });
});
