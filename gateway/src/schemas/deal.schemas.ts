import { z } from 'zod';
import { DEAL_STATUSES } from '@crm/shared/schemas';
import {
  CompanyRef,
  component,
  ContactRef,
  count,
  customFieldValues,
  FunnelRef,
  id,
  MemberRef,
  nullable,
  StageRef,
  timestamp,
} from './registry';

export const Deal = component(
  'Deal',
  z.object({
    id: id('deal'),
    title: z.string(),
    description: nullable(z.string()),
    value: z.number().min(0).default(0),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .describe('ISO 4217'),
    status: z.enum(DEAL_STATUSES),
    funnel: FunnelRef,
    stage: StageRef,
    contacts: z.array(ContactRef).default([]),
    company: nullable(CompanyRef),
    assigned_to: nullable(MemberRef),
    expected_close_date: nullable(timestamp),
    probability: nullable(z.number().int().min(0).max(100)),
    lost_reason: nullable(z.string()),
    closed_at: nullable(timestamp),
    tags: z.array(z.string()).default([]),
    custom_fields: customFieldValues,
    notes_count: count.default(0),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A deal. status, funnel and stage change only through the action routes (move, win, lose, reopen, transfer).',
);
