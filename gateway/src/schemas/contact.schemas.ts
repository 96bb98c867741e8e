import { z } from 'zod';
import { CONTACT_SOURCES, DEAL_STATUSES, E164 } from '@crm/shared/schemas';
import { CompanyRef, component, count, customFieldValues, id, nullable, orEmpty, StageRef, timestamp } from './registry';

const contactFields = {
  id: id('contact'),
  name: z.string(),
  email: nullable(z.email().max(254)),
  phone: nullable(z.string().regex(E164)),
  photoapp_username: nullable(z.string()),
  chatapp_jid: nullable(z.string()),
  socialmsg_psid: nullable(z.string()),
  socialmsg_name: nullable(z.string()),
  source: nullable(z.enum(CONTACT_SOURCES)),
  avatar_url: nullable(z.string()),
  company: nullable(CompanyRef),
  tags: z.array(z.string()).default([]),
  custom_fields: customFieldValues,
  funnel_stage: nullable(z.string()),
  external_id: nullable(z.string()).describe("the integrator's own id (a shop, ERP or form id), unique per organization"),
  notes_count: count,
  deals_count: count,
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
  z.object({ id: id('deal'), title: z.string(), value: z.number().min(0), status: z.enum(DEAL_STATUSES), stage: StageRef }),
);

export const ContactDetail = component(
  'ContactDetail',
  z.object({
    ...contactFields,
    messages_count: orEmpty(count, 0).describe('messages in all its conversations'),
    deals: z.array(DealSummary).max(10),
  }),
  'A contact with the fields only GET /v1/contacts/{id} returns.',
);
