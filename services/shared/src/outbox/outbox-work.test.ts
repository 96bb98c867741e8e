import { describe, expect, it } from 'vitest';
import { newEvent } from './domain-event';
import { OutboxWork } from './outbox-work';

const entry = () => newEvent('org_work', 'contact.deleted', { object: { id: 'ct_1' } });

describe('the outbox relay work list', () => {
  it('claims a record once however many writes named it, and hands over the entries of records leased at the write', () => {
    const work = new OutboxWork();
    const leased = [entry()];
    work.add({ collection: 'contacts', id: 'ct_1' });
    work.add({ collection: 'contacts', id: 'ct_1' });
    work.add({ collection: 'deals', id: 'dl_1' });
    work.add({ collection: 'contacts', id: 'ct_2', leased });

    const pass = work.take([], 100);
    expect(pass.ids).toEqual(
      new Map([
        ['contacts', ['ct_1']],
        ['deals', ['dl_1']],
      ]),
    );
    expect(pass.leased.get('contacts')).toEqual([{ id: 'ct_2', entries: leased }]);
    expect(pass.sweep.size).toBe(0);
    expect(work.isEmpty()).toBe(true);
  });

  it('leaves ids beyond the limit for the next pass, and sweeps what was asked and what filled its batch', () => {
    const work = new OutboxWork();
    for (let n = 0; n < 5; n++) work.add({ collection: 'contacts', id: `ct_${n}` });
    work.sweepAgain('notes');

    const first = work.take(['deals'], 3);
    expect(first.ids.get('contacts')).toEqual(['ct_0', 'ct_1', 'ct_2']);
    expect([...first.sweep].sort()).toEqual(['deals', 'notes']);
    expect(work.isEmpty()).toBe(false);

    const second = work.take([], 3);
    expect(second.ids.get('contacts')).toEqual(['ct_3', 'ct_4']);
    expect(second.sweep.size).toBe(0);
    expect(work.isEmpty()).toBe(true);
  });

  it('gives back the part of a pass whose claim failed, and keeps records claimed but not published', () => {
    const work = new OutboxWork();
    const leased = [entry()];
    work.add({ collection: 'contacts', id: 'ct_1' });
    work.add({ collection: 'contacts', id: 'ct_2', leased });
    const pass = work.take(['contacts'], 100);

    work.putBack('contacts', pass);
    work.holdLeased('deals', [{ id: 'dl_1', entries: [entry()] }]);
    const again = work.take([], 100);
    expect(again.ids.get('contacts')).toEqual(['ct_1']);
    expect(again.leased.get('contacts')).toEqual([{ id: 'ct_2', entries: leased }]);
    expect(again.leased.get('deals')).toHaveLength(1);
    expect([...again.sweep]).toEqual(['contacts']);
  });
});
