import { z } from 'zod';
import { component, nullable, Ref, timestamp } from './registry';

export const Company = component(
  'Company',
  z.object({
    id: z.string(),
    name: z.string(),
    email: nullable(z.string()),
    phone: nullable(z.string()),
    website: nullable(z.string()),
    sector: nullable(z.string()),
    size: nullable(z.enum(['1-10', '11-50', '51-200', '201-500', '500+'])),
    city: nullable(z.string()),
    state: nullable(z.string()),
    assigned_to: nullable(Ref).describe('the responsible member {id, name}'),
    tags: z.array(z.string()).default([]),
    custom_fields: z
      .record(z.string(), z.unknown())
      .nullable()
      .transform((value) => value ?? {})
      .default({}),
    external_id: nullable(z.string()).describe("the integrator's own id (a shop, ERP or form id), unique per organization"),
    contacts_count: z.number().int().default(0).describe('live contacts linked to the company (real value)'),
    deals_count: z.number().int().default(0).describe('live deals linked to the company, any status (real value)'),
    total_deals_value: z.number().default(0).describe('sum of the value of those deals (real value)'),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A company.',
);
