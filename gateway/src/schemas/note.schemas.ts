import { NOTE_CATEGORIES, NOTE_COLORS } from '@crm/shared/schemas';
import { z } from 'zod';
import { component, id, timestamp } from './registry';

export const Note = component(
  'Note',
  z.object({
    id: id('note'),
    content: z.string(),
    color: z.enum(NOTE_COLORS),
    category: z.enum(NOTE_CATEGORIES),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A note on a contact or a deal.',
);
