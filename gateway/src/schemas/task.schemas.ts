import { TASK_PRIORITIES, TASK_STATUSES, TASK_TYPES } from '@crm/shared/schemas';
import { z } from 'zod';
import { CompanyRef, component, ContactRef, id, MemberRef, nullable, timestamp } from './registry';

export const Task = component(
  'Task',
  z.object({
    id: id('task'),
    title: z.string(),
    description: nullable(z.string()),
    type: z.enum(TASK_TYPES),
    priority: z.enum(TASK_PRIORITIES),
    status: z.enum(TASK_STATUSES),
    due_at: nullable(timestamp),
    completed_at: nullable(timestamp),
    assigned_to: nullable(MemberRef),
    contact: nullable(ContactRef),
    deal: nullable(z.object({ id: id('deal'), title: z.string() })),
    company: nullable(CompanyRef),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A task.',
);
