import { z } from 'zod';
import { component, nullable, Ref, timestamp } from './registry';

export const Deal = component(
  'Deal',
  z.object({
    id: z.string(),
    title: z.string(),
    description: nullable(z.string()),
    value: z.number().default(0),
    currency: z.string(),
    status: z.enum(['open', 'won', 'lost']),
    funnel: Ref,
    stage: Ref,
    contacts: z.array(Ref).default([]),
    company: nullable(Ref),
    assigned_to: nullable(Ref),
    expected_close_date: nullable(timestamp),
    probability: nullable(z.number().int()),
    lost_reason: nullable(z.string()),
    closed_at: nullable(timestamp),
    tags: z.array(z.string()).default([]),
    custom_fields: z
      .record(z.string(), z.unknown())
      .nullable()
      .transform((value) => value ?? {})
      .default({}),
    notes_count: z.number().int().default(0),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A deal. status, funnel and stage change only through the action routes (move, win, lose, reopen, transfer).',
);
