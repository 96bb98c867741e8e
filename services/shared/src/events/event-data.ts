import { z } from 'zod';
import type { IdKind } from '../ids';
import { CHANNELS } from '../schemas/messaging';
import { id, messageObject, noteObject, ref, timestamp } from './event-objects';

/**
 * The shapes of `data` (catalogue §3): record events `{object}`, changes also `previous` (the old values of the
 * changed fields, by read-shape name), deletes `{object: {id}}`, tag events `{contact, tag}`, note events
 * `{note, <parent>_id}`.
 */
export const recordData = <S extends z.ZodType>(object: S) => z.object({ object });

export const changeData = <S extends z.ZodType, P extends z.ZodType>(object: S, previous: P) => z.object({ object, previous });

/** `previous` of a `*.updated` kind: whichever fields the write changed. */
export const changedFields = z
  .record(z.string(), z.unknown())
  .describe('The old values of the fields the write changed, by their names in the read shape');

export const deletedData = (kind: IdKind) => z.object({ object: z.object({ id: id(kind) }) });

export const tagData = z.object({ contact: ref('contact'), tag: z.string() });

export const contactNoteData = z.object({ note: noteObject, contact_id: id('contact') });
export const dealNoteData = z.object({ note: noteObject, deal_id: id('deal') });

export const assigneeChange = z.object({ assigned_to: ref('member').nullable() });

/**
 * Message events. A message sent by a broadcast carries the broadcast's id, an AI agent's reply the id of its run,
 * so that status events can be tied to them without reading the recipient list.
 */
export const messageData = z.object({
  object: messageObject,
  broadcast_id: id('broadcast').optional().describe('set when a broadcast sent the message'),
  agent_run_id: id('agentRun').optional().describe("set when it is an AI agent's reply"),
});

export const messageEditData = messageData.extend({ previous: z.object({ content: z.string().nullable() }) });

export const reactionData = messageData.extend({
  reaction: z.object({ emoji: z.string().describe('the emoji; empty when the contact removed the reaction'), reacted_at: timestamp }),
});

export const optOutData = z.object({
  contact: ref('contact'),
  channel: z.enum(CHANNELS).nullable().describe('the channel the request came in on; null for an API write'),
  source: z.enum(['keyword', 'api']).describe('keyword: the contact sent STOP (or a configured word); api: a write through the API'),
  keyword: z.string().nullable(),
  opted_out_at: timestamp,
});
