import { z } from 'zod';
import { component, nullable, Ref, timestamp } from './registry';

const contactFields = {
  id: z.string(),
  name: z.string(),
  email: nullable(z.string()),
  phone: nullable(z.string()),
  photoapp_username: nullable(z.string()),
  chatapp_jid: nullable(z.string()),
  socialmsg_psid: nullable(z.string()),
  socialmsg_name: nullable(z.string()),
  source: nullable(z.string()),
  avatar_url: nullable(z.string()),
  company: nullable(Ref),
  tags: z.array(z.string()).default([]),
  custom_fields: z
    .record(z.string(), z.unknown())
    .nullable()
    .transform((value) => value ?? {})
    .default({}),
  funnel_stage: nullable(z.string()),
  external_id: nullable(z.string()).describe("the integrator's own id (a shop, ERP or form id), unique per organization"),
  notes_count: z.number().int(),
  deals_count: z.number().int(),
  last_message_at: nullable(timestamp),
  created_at: timestamp,
  updated_at: timestamp,
};

export const Contact = component(
  'Contact',
  z.object(contactFields),
  'A contact. Contacts carry no assigned_to in v1 (assignment is per conversation).',
);

export const DealSummary = component(
  'DealSummary',
  z.object({ id: z.string(), title: z.string(), value: z.number(), status: z.string(), stage: Ref }),
);

export const ContactDetail = component(
  'ContactDetail',
  z.object({
    ...contactFields,
    messages_count: z
      .number()
      .int()
      .nullable()
      .transform((value) => value ?? 0),
    deals: z.array(DealSummary).max(10),
  }),
  'A contact with the fields only GET /v1/contacts/{id} returns.',
);
