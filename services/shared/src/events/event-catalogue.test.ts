import { describe, expect, it } from 'vitest';
import { SCOPES } from '../scopes';
import {
  EVENT_CATALOGUE,
  EVENT_KINDS,
  EVENT_TYPE_NAMES,
  eventSpec,
  exampleEventData,
  readScopesOf,
  type EventType,
} from './event-catalogue';

/** Catalogue §6: the kinds API writes emit. */
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

/** The read scope of each family: a subscription receives only what its key could read. */
const FAMILY_SCOPE: Record<string, string> = {
  contact: 'read:contacts',
  company: 'read:companies',
  deal: 'read:deals',
  task: 'read:tasks',
  conversation: 'read:conversations',
  message: 'read:conversations',
  channel: 'read:chatapp_instances',
  template: 'read:chatapp_instances',
  broadcast: 'read:broadcasts',
  agent: 'read:ai_agents',
  webhook: 'read:webhooks',
};

const now = new Date('2026-01-31T12:00:00.000Z');

describe('the event catalogue', () => {
  it('has the 48 kinds once each (the 47 of the catalogue and webhook.replay.completed), exactly the 21 of catalogue §6 marked api_write', () => {
    expect(EVENT_KINDS).toHaveLength(48);
    expect(new Set(EVENT_TYPE_NAMES).size).toBe(48);
    expect(
      EVENT_KINDS.filter((kind) => kind.api_write)
        .map((kind) => kind.type)
        .sort(),
    ).toEqual([...API_WRITE_KINDS].sort());
    for (const named of ['message.received', 'message.edited', 'channel.disconnected']) expect(EVENT_TYPE_NAMES).toContain(named);
  });

  it.each(EVENT_TYPE_NAMES)(
    '%s has a description, a producer, the read scope of its family, a schema and an example that validates',
    (type) => {
      const spec = eventSpec(type);
      expect(type).toMatch(/^[a-z]+(\.[a-z_]+)+$/);
      expect(spec.description.length).toBeGreaterThan(10);
      expect(['crm', 'messaging', 'agents', 'webhooks']).toContain(spec.producer);
      expect(SCOPES).toContain(spec.scope);
      expect(spec.scope).toBe(FAMILY_SCOPE[type.split('.')[0] ?? '']);
      const parsed = spec.data.safeParse(spec.example(now));
      expect(parsed.error?.issues ?? []).toEqual([]);
      // The example is what the schema says, not something it happens to accept after a transformation.
      expect(parsed.data).toEqual(spec.example(now));
    },
  );

  it.each(EVENT_TYPE_NAMES)('%s data follows catalogue §3', (type) => {
    const data = exampleEventData(type, now);
    if (type.startsWith('contact.tag.')) expect(Object.keys(data).sort()).toEqual(['contact', 'tag']);
    else if (type.endsWith('.note.added')) expect(data).toHaveProperty('note.id');
    else if (type === 'contact.opted_out') expect(data).toHaveProperty('contact.id');
    else if (type.endsWith('.deleted') && !type.startsWith('message.')) expect(data).toEqual({ object: { id: expect.any(String) } });
    else expect(data).toHaveProperty('object.id');
    if (/^(contact|company|deal)\.updated$|\.(assigned|unassigned|edited)$|^deal\.(stage\.changed|pipeline\.transferred)$/.test(type))
      expect(data.previous).toEqual(expect.any(Object));
  });

  it('refuses a payload of the wrong shape', () => {
    const contactCreated = EVENT_CATALOGUE['contact.created'].data;
    expect(contactCreated.safeParse({ object: { id: 'ct_1' } }).success).toBe(false);
    expect(
      contactCreated.safeParse({ ...exampleEventData('contact.created', now), object: { ...exampleEventData('deal.created', now) } })
        .success,
    ).toBe(false);
    const example = exampleEventData('message.received', now) as { object: Record<string, unknown> };
    expect(EVENT_CATALOGUE['message.received'].data.safeParse({ object: { ...example.object, direction: 'sideways' } }).success).toBe(
      false,
    );
  });

  it('lists each kind with its producer and scope for the public list', () => {
    const kind = EVENT_KINDS.find((entry) => entry.type === ('agent.run.completed' satisfies EventType));
    expect(kind).toEqual({
      type: 'agent.run.completed',
      description: expect.any(String),
      api_write: false,
      producer: 'agents',
      scope: 'read:ai_agents',
    });
  });

  it('names the read scopes a subscription to some kinds needs, once each; every kind needs every read scope of a family', () => {
    expect(readScopesOf(['contact.created', 'contact.updated', 'message.received', 'deal.created'])).toEqual([
      'read:contacts',
      'read:conversations',
      'read:deals',
    ]);
    expect(readScopesOf([])).toEqual([]);
    expect(readScopesOf(EVENT_TYPE_NAMES)).toEqual([...new Set(Object.values(FAMILY_SCOPE))].sort());
  });
});
