import { EVENT_TYPE_NAMES } from '@crm/shared/schemas';
import { describe, expect, it } from 'vitest';
import { eventBody } from './event-body';
import { listEventTypes } from './event-types';

describe('GET /v1/webhooks/event-types', () => {
  it('pages through the catalogue in its order', () => {
    const first = listEventTypes({ limit: 20, after: undefined });
    const second = listEventTypes({ limit: 20, after: first.next });
    const third = listEventTypes({ limit: 20, after: second.next });
    expect([...first.items, ...second.items, ...third.items].map((kind) => kind.type)).toEqual(EVENT_TYPE_NAMES);
    expect(third.hasMore).toBe(false);
    expect(first.total).toBe(48);
  });
});

describe('the delivered body', () => {
  it('is serialized in a fixed key order, without the organization', () => {
    const now = new Date('2026-01-31T12:00:00.000Z');
    const body = eventBody({ id: 'evt_1', type: 'contact.created', created_at: now.toISOString(), data: { object: { id: 'ct_1' } } });
    expect(body).toBe(
      '{"id":"evt_1","type":"contact.created","created_at":"2026-01-31T12:00:00.000Z","api_version":"v1","data":{"object":{"id":"ct_1"}}}',
    );
  });
});
