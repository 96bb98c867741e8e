import { z } from 'zod';
import { trimmedText } from './common';

export const NOTE_COLORS = ['yellow', 'blue', 'green', 'pink', 'orange', 'purple', 'red', 'gray'] as const;
export const NOTE_CATEGORIES = ['general', 'follow_up', 'important', 'reminder', 'meeting', 'objection', 'success'] as const;

const contentSchema = trimmedText(10_000);

/** POST /v1/contacts/{id}/notes and /v1/deals/{id}/notes */
export const createNoteBody = z.strictObject({
  content: contentSchema,
  color: z.enum(NOTE_COLORS).default('yellow'),
  category: z.enum(NOTE_CATEGORIES).default('general'),
});

/** PATCH of a note: any subset. */
export const updateNoteBody = z.strictObject({
  content: contentSchema.optional(),
  color: z.enum(NOTE_COLORS).optional(),
  category: z.enum(NOTE_CATEGORIES).optional(),
});

export type CreateNoteBody = z.infer<typeof createNoteBody>;
export type UpdateNoteBody = z.infer<typeof updateNoteBody>;
