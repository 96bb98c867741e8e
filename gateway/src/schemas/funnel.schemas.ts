import { z } from 'zod';
import { component, nullable, timestamp } from './registry';

export const Stage = component(
  'Stage',
  z.object({
    id: z.string(),
    funnel_id: z.string(),
    name: z.string(),
    position: z.number().int(),
    color: nullable(z.string()),
    probability: nullable(z.number().int()),
    total_deals: z.number().int().default(0),
    total_value: z.number().default(0),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A stage of a funnel. total_deals and total_value count the open deals in it.',
);

export const Funnel = component(
  'Funnel',
  z.object({
    id: z.string(),
    name: z.string(),
    position: z.number().int(),
    is_default: z.boolean().default(false),
    is_archived: z.boolean().default(false),
    stages: z.array(Stage).default([]),
    total_deals: z.number().int().default(0),
    total_value: z.number().default(0),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A deal pipeline with its stages in board order. total_deals and total_value count its open deals.',
);
