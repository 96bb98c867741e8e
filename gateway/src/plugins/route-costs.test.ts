import { describe, expect, it } from 'vitest';
import { ALL_ROUTES } from '../routes';
import { ROUTE_COSTS, routeCost } from './route-costs';

describe('route costs', () => {
  it('charges the organization-wide scans more than an ordinary call', () => {
    expect(routeCost('listContacts', {})).toBe(1);
    expect(routeCost('listContacts', { search: 'ada' })).toBe(5);
    expect(routeCost('listTags', {})).toBe(5);
    expect(routeCost('estimateBroadcastAudience', {})).toBe(10);
    expect(routeCost('getContact', {})).toBe(1);
  });

  it('names only routes that exist', () => {
    const operations = new Set(ALL_ROUTES.map((route) => route.operationId));
    for (const operationId of Object.keys(ROUTE_COSTS)) expect(operations).toContain(operationId);
  });
});
