import { describe, expect, it } from 'vitest';
import { ALL_ROUTES } from '../routes';
import { itemCost, PER_ITEM_ROUTES, ROUTE_COSTS, routeCost } from './route-costs';

describe('route costs', () => {
  it('charges the organization-wide scans more than an ordinary call', () => {
    expect(routeCost('listContacts', {})).toBe(1);
    expect(routeCost('listContacts', { search: 'ada' })).toBe(5);
    expect(routeCost('listTags', {})).toBe(5);
    expect(routeCost('estimateBroadcastAudience', {})).toBe(10);
    expect(routeCost('getContact', {})).toBe(1);
  });

  it('charges a batch one unit per item, and any other body nothing more', () => {
    expect(itemCost('batchUpsertContacts', { items: [{}, {}, {}] })).toBe(3);
    expect(itemCost('batchUpsertCompanies', { items: [{}] })).toBe(1);
    expect(itemCost('createContact', { items: [{}, {}] })).toBe(1);
    expect(itemCost('updateContact', undefined)).toBe(1);
  });

  it('names only routes that exist', () => {
    const operations = new Set(ALL_ROUTES.map((route) => route.operationId));
    for (const operationId of [...Object.keys(ROUTE_COSTS), ...PER_ITEM_ROUTES]) expect(operations).toContain(operationId);
  });
});
