import { EVENT_KINDS, EVENT_TYPE_NAMES } from '@crm/shared/schemas';
import { describe, expect, it } from 'vitest';
import { eventBody } from './event-body';
import { listEventTypes } from './event-types';
import { exampleEventData } from './example-events';

const API_WRITE_KINDS = [
  'contact.deleted',
  'contact.tag.added',
  'contact.tag.removed',
  'company.created',
  'company.updated',
  'company.deleted',
  'deal.deleted',
  'deal.assigned',
  'deal.pipeline.transferred',
  'task.created',
  'task.completed',
  'conversation.assigned',
  'conversation.closed',
  'contact.created',
  'contact.updated',
  'contact.note.added',
  'deal.created',
  'deal.updated',
  'deal.stage.changed',
  'deal.note.added',
  'message.sent',
];

describe('event kinds', () => {
  it('has 47 unique kinds, exactly the 21 of catalogue §6 marked api_write', () => {
    expect(EVENT_KINDS).toHaveLength(47);
    expect(new Set(EVENT_TYPE_NAMES).size).toBe(47);
    expect(
      EVENT_KINDS.filter((kind) => kind.api_write)
        .map((kind) => kind.type)
        .sort(),
    ).toEqual([...API_WRITE_KINDS].sort());
    for (const named of ['message.received', 'message.edited', 'channel.disconnected']) expect(EVENT_TYPE_NAMES).toContain(named);
    for (const kind of EVENT_KINDS) expect(kind.type).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
  });

  it('pages through the list in catalogue order', () => {
    const first = listEventTypes({ limit: 20, after: undefined });
    const second = listEventTypes({ limit: 20, after: first.next });
    const third = listEventTypes({ limit: 20, after: second.next });
    expect([...first.items, ...second.items, ...third.items].map((kind) => kind.type)).toEqual(EVENT_TYPE_NAMES);
    expect(third.hasMore).toBe(false);
    expect(first.total).toBe(47);
  });
});

describe('example payloads', () => {
  const now = new Date('2026-01-31T12:00:00.000Z');

  it.each(EVENT_TYPE_NAMES)('%s has a data shape of catalogue §3', (type) => {
    const data = exampleEventData(type, now);
    if (type.startsWith('contact.tag.'))
      expect(data).toEqual({ contact: { id: expect.stringMatching(/^ct_/), name: expect.any(String) }, tag: expect.any(String) });
    else if (type === 'contact.note.added')
      expect(data).toMatchObject({ note: { id: expect.stringMatching(/^nt_/) }, contact_id: expect.stringMatching(/^ct_/) });
    else if (type === 'deal.note.added')
      expect(data).toMatchObject({ note: { id: expect.stringMatching(/^nt_/) }, deal_id: expect.stringMatching(/^dl_/) });
    else if (type.endsWith('.deleted') && !type.startsWith('message.')) expect(data).toEqual({ object: { id: expect.any(String) } });
    else expect(data.object).toMatchObject({ id: expect.any(String) });
    // Catalogue §3 rule for API-write kinds; platform kinds such as channel.qr.updated carry no previous values.
    if (API_WRITE_KINDS.includes(type) && /\.(updated|assigned)$|^deal\.(stage\.changed|pipeline\.transferred)$/.test(type))
      expect(data.previous).toEqual(expect.any(Object));
  });

  it('serializes the delivered body in a fixed key order, without the organization', () => {
    const body = eventBody({ id: 'evt_1', type: 'contact.created', created_at: now.toISOString(), data: { object: { id: 'ct_1' } } });
    expect(body).toBe(
      '{"id":"evt_1","type":"contact.created","created_at":"2026-01-31T12:00:00.000Z","api_version":"v1","data":{"object":{"id":"ct_1"}}}',
    );
  });
});
