import { z } from 'zod';
import { component, timestamp } from './registry';

export const Replay = component(
  'Replay',
  z.object({
    id: z.string(),
    webhook_id: z.string(),
    status: z.enum(['pending', 'running', 'completed', 'cancelled']).describe('cancelled: the subscription was deleted'),
    since: timestamp,
    until: timestamp,
    types: z.array(z.string()).default([]).describe('the kinds asked for; empty: every kind the subscription receives'),
    matched: z.number().int().default(0).describe('stored events of the window that the subscription receives, queued so far'),
    delivered: z.number().int().default(0).describe('of those, delivered (a 2xx)'),
    failed: z.number().int().default(0).describe('of those, failed after every attempt'),
    created_at: timestamp,
    completed_at: z.string().nullable().default(null),
  }),
  'A replay of stored events to one subscription.',
);
