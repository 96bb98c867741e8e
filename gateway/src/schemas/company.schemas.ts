import { z } from 'zod';
import { COMPANY_SIZES, E164 } from '@crm/shared/schemas';
import { component, count, customFieldValues, id, MemberRef, nullable, timestamp } from './registry';

export const Company = component(
  'Company',
  z.object({
    id: id('company'),
    name: z.string(),
    email: nullable(z.email().max(254)),
    phone: nullable(z.string().regex(E164)),
    website: nullable(z.string()),
    sector: nullable(z.string()),
    size: nullable(z.enum(COMPANY_SIZES)),
    city: nullable(z.string()),
    state: nullable(z.string()),
    assigned_to: nullable(MemberRef).describe('the responsible member'),
    tags: z.array(z.string()).default([]),
    custom_fields: customFieldValues,
    external_id: nullable(z.string()).describe("the integrator's own id (a shop, ERP or form id), unique per organization"),
    contacts_count: count.default(0).describe('live contacts linked to the company (real value)'),
    deals_count: count.default(0).describe('live deals linked to the company, any status (real value)'),
    total_deals_value: z.number().min(0).default(0).describe('sum of the value of those deals (real value)'),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A company.',
);
