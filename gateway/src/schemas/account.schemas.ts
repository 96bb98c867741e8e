import { SCOPES } from '@crm/shared/core';
import { z } from 'zod';
import { component, count, customFieldValue, id, nullable, timestamp } from './registry';

/** What identifies a key and what it may do (the key itself is shown once, when the operator creates it). */
const apiKeyFields = {
  id: id('apiKey'),
  name: z.string(),
  prefix: z
    .string()
    .regex(/^sk_live_/)
    .describe('the first characters of the key, to recognise it'),
  scopes: z.array(z.enum(SCOPES)),
  created_at: timestamp,
  last_used_at: nullable(timestamp),
};

export const Me = component(
  'Me',
  z.object({
    organization: z.object({
      id: id('organization'),
      name: z.string(),
      plan: z.string().describe('free, starter, pro or enterprise'),
      currency: z
        .string()
        .regex(/^[A-Z]{3}$/)
        .describe('ISO 4217'),
      timezone: z.string().describe('IANA time zone'),
    }),
    api_key: z.object(apiKeyFields),
  }),
);

export const ApiKey = component(
  'ApiKey',
  z.object({
    ...apiKeyFields,
    expires_at: nullable(timestamp).describe('when the key stops authenticating by itself; null: never'),
    revoked_at: nullable(timestamp),
    status: z.enum(['active', 'revoked', 'expired']),
  }),
  'An API key of the organization: what identifies it and what it may do. Neither the key nor its hash is ever shown.',
);

export const Member = component(
  'Member',
  z.object({
    id: id('member'),
    name: z.string(),
    email: z.email().max(254),
    role: z.string().describe('owner, admin or member'),
    is_owner: z.boolean(),
    is_active: z.boolean(),
    last_active_at: nullable(timestamp),
    avatar_url: nullable(z.string()),
  }),
);

export const CustomFieldDefinition = component(
  'CustomFieldDefinition',
  z.object({
    id: id('customField'),
    key: z.string(),
    label: z.string(),
    type: z.enum(['text', 'textarea', 'number', 'boolean', 'date', 'email', 'phone', 'url', 'select', 'multiselect']),
    entity: z.enum(['contact', 'company', 'deal']),
    options: z
      .array(z.string())
      .nullable()
      .default(null)
      .transform((options) => (options && options.length > 0 ? options : null))
      .pipe(z.array(z.string()).min(1).nullable())
      .describe('null, never an empty list, when the field has no options'),
    default_value: nullable(customFieldValue),
    required: z.boolean(),
    is_active: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const Tag = component('Tag', z.object({ name: z.string(), count }), 'A tag and its uses across contacts, companies and deals.');
