import { describe, expect, it } from 'vitest';
import { dealRecord } from '../../../../test/support/crm-records';
import { contactsMoved } from './deal-write';

describe('the contacts a deal change links and unlinks (their stored deals_count)', () => {
  const deal = dealRecord('org_1', { contact_ids: ['ct_a', 'ct_b'] });

  it('a new list of contacts: the added ones are linked, the dropped ones unlinked, the kept ones neither', () => {
    expect(contactsMoved(deal, { contact_ids: ['ct_b', 'ct_c'] })).toEqual({ linked: ['ct_c'], unlinked: ['ct_a'] });
    expect(contactsMoved(deal, { contact_ids: ['ct_b', 'ct_a'] })).toEqual({ linked: [], unlinked: [] });
  });

  it('a change that leaves contact_ids alone moves nothing; a delete unlinks every contact', () => {
    expect(contactsMoved(deal, { title: 'Renamed' })).toEqual({ linked: [], unlinked: [] });
    expect(contactsMoved(deal, { deleted_at: new Date(), updated_at: new Date() })).toEqual({ linked: [], unlinked: ['ct_a', 'ct_b'] });
  });
});
