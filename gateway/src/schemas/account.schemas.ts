import { z } from 'zod';
import { component, nullable, timestamp } from './registry';

export const Me = component(
  'Me',
  z.object({
    organization: z.object({ id: z.string(), name: z.string(), plan: z.string(), currency: z.string(), timezone: z.string() }),
    api_key: z.object({
      id: z.string(),
      name: z.string(),
      prefix: z.string(),
      scopes: z.array(z.string()),
      created_at: timestamp,
      last_used_at: nullable(timestamp),
    }),
  }),
);

export const Member = component(
  'Member',
  z.object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    role: z.string(),
    is_owner: z.boolean(),
    is_active: z.boolean(),
    last_active_at: nullable(timestamp),
    avatar_url: nullable(z.string()),
  }),
);

export const CustomFieldDefinition = component(
  'CustomFieldDefinition',
  z.object({
    id: z.string(),
    key: z.string(),
    label: z.string(),
    type: z.enum(['text', 'textarea', 'number', 'boolean', 'date', 'email', 'phone', 'url', 'select', 'multiselect']),
    entity: z.enum(['contact', 'company', 'deal']),
    options: z
      .array(z.unknown())
      .nullable()
      .default(null)
      .transform((options) => (options && options.length > 0 ? options : null))
      .describe('null, never an empty list, when the field has no options'),
    default_value: z.unknown().transform((value) => value ?? null),
    required: z.boolean(),
    is_active: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const Tag = component(
  'Tag',
  z.object({ name: z.string(), count: z.number().int() }),
  'A tag and its uses across contacts, companies and deals.',
);
