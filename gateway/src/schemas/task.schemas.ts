import { TASK_PRIORITIES, TASK_STATUSES, TASK_TYPES } from '@crm/shared/schemas';
import { z } from 'zod';
import { component, nullable, Ref, timestamp } from './registry';

export const Task = component(
  'Task',
  z.object({
    id: z.string(),
    title: z.string(),
    description: nullable(z.string()),
    type: z.enum(TASK_TYPES),
    priority: z.enum(TASK_PRIORITIES),
    status: z.enum(TASK_STATUSES),
    due_at: nullable(timestamp),
    completed_at: nullable(timestamp),
    assigned_to: nullable(Ref).describe('the member {id, name}'),
    contact: nullable(Ref),
    deal: nullable(z.object({ id: z.string(), title: z.string() })),
    company: nullable(Ref),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A task.',
);
