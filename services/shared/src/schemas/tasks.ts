import { z } from 'zod';
import { isoDateTimeSchema, trimmedText } from './common';
import { idOf } from './validation';

export const TASK_TYPES = ['todo', 'call', 'email', 'meeting', 'follow_up'] as const;
export const TASK_PRIORITIES = ['low', 'normal', 'high'] as const;
export const TASK_STATUSES = ['open', 'completed'] as const;

const titleSchema = trimmedText(200);

const taskFields = {
  description: trimmedText(5_000, 0).nullable().optional(),
  due_at: isoDateTimeSchema.nullable().optional(),
  assigned_to: idOf('member').nullable().optional(),
  contact_id: idOf('contact').nullable().optional(),
  deal_id: idOf('deal').nullable().optional(),
  company_id: idOf('company').nullable().optional(),
};

/** POST /v1/tasks. A task is created `open`; `status` is not a body field. */
export const createTaskBody = z.strictObject({
  title: titleSchema,
  type: z.enum(TASK_TYPES).default('todo'),
  priority: z.enum(TASK_PRIORITIES).default('normal'),
  ...taskFields,
});

/** PATCH /v1/tasks/{id}: the fields of the create; `status` changes only through complete/reopen → UNKNOWN_FIELDS. */
export const updateTaskBody = z.strictObject({
  title: titleSchema.optional(),
  type: z.enum(TASK_TYPES).optional(),
  priority: z.enum(TASK_PRIORITIES).optional(),
  ...taskFields,
});

export type CreateTaskBody = z.infer<typeof createTaskBody>;
export type UpdateTaskBody = z.infer<typeof updateTaskBody>;
