import { ref, type JsonSchema } from './json-schema';

/** The record each event family carries in data.object: as its read route returns it (catalogue §3). */
const FAMILY_COMPONENT: Record<string, string> = {
  contact: 'Contact',
  company: 'Company',
  deal: 'Deal',
  task: 'Task',
  conversation: 'Conversation',
  message: 'Message',
  channel: 'ChatInstance',
  broadcast: 'Broadcast',
  template: 'Template',
};

/** Kinds whose data also carries `previous`: the old values of the fields that changed. */
const WITH_PREVIOUS = new Set([
  'contact.updated',
  'company.updated',
  'deal.updated',
  'deal.assigned',
  'deal.stage.changed',
  'deal.pipeline.transferred',
  'conversation.assigned',
  'conversation.unassigned',
  'message.edited',
]);

const previous: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: 'The old values of the changed fields, by field name',
};
const object = (schema: JsonSchema): JsonSchema => ({ type: 'object', required: ['object'], properties: { object: schema } });
const anyRecord: JsonSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
  additionalProperties: true,
  description: 'The record the event is about',
};

/**
 * The JSON Schema of `data` for one event kind, as the services build it (newOutboxEntry calls): record events
 * `{object}` (plus `previous` on changes), deletes `{object: {id}}`, tag events `{contact, tag}`, note events
 * `{note, contact_id|deal_id}`. Kinds only the platform emits about records without a public read route (agent
 * runs, merges, opt-outs) carry a record with at least its id.
 */
export function eventDataSchema(type: string): JsonSchema {
  const family = type.split('.')[0] ?? '';
  if (type === 'contact.tag.added' || type === 'contact.tag.removed')
    return { type: 'object', required: ['contact', 'tag'], properties: { contact: ref('Ref'), tag: { type: 'string' } } };
  if (type === 'contact.note.added' || type === 'deal.note.added') {
    const parent = type === 'contact.note.added' ? 'contact_id' : 'deal_id';
    return { type: 'object', required: ['note', parent], properties: { note: ref('Note'), [parent]: { type: 'string' } } };
  }
  if (type.endsWith('.deleted') && family !== 'message')
    return object({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } });
  const component = FAMILY_COMPONENT[family];
  const data = object(component && type !== 'contact.merged' && type !== 'contact.opted_out' ? ref(component) : anyRecord);
  if (WITH_PREVIOUS.has(type)) {
    data.required = ['object', 'previous'];
    (data.properties as JsonSchema).previous = previous;
  }
  return data;
}
