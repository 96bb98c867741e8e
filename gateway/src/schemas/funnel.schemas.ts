import { z } from 'zod';
import { component, count, id, nullable, timestamp } from './registry';

export const Stage = component(
  'Stage',
  z.object({
    id: id('stage'),
    funnel_id: id('funnel'),
    name: z.string(),
    position: z.number().int().min(1).describe('1-based board position'),
    color: nullable(z.string().regex(/^#[0-9A-Fa-f]{6}$/)),
    probability: nullable(z.number().int().min(0).max(100)),
    total_deals: count.default(0),
    total_value: z.number().min(0).default(0),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A stage of a funnel. total_deals and total_value count the open deals in it.',
);

export const Funnel = component(
  'Funnel',
  z.object({
    id: id('funnel'),
    name: z.string(),
    position: z.number().int().min(0),
    is_default: z.boolean().default(false),
    is_archived: z.boolean().default(false),
    stages: z.array(Stage).default([]),
    total_deals: count.default(0),
    total_value: z.number().min(0).default(0),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A deal pipeline with its stages in board order. total_deals and total_value count its open deals.',
);
