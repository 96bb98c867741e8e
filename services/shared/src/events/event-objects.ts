import { z } from 'zod';
import { idPattern, type IdKind } from '../ids';
import { AGENT_TYPES, RUN_STATUSES, SKIP_REASONS } from '../schemas/agents';
import { BROADCAST_STATUSES, SEND_PROFILES } from '../schemas/broadcasts';
import { DEAL_STATUSES } from '../schemas/deals';
import { CHANNELS, CHATAPP_KINDS, CONVERSATION_STATUSES, INSTANCE_STATUSES, MESSAGE_STATUSES } from '../schemas/messaging';
import { TASK_STATUSES } from '../schemas/tasks';

/**
 * The records events carry, as their read routes return them (catalogue §3), written by the services' view
 * functions. Fields whose stored type is a plain string stay strings here, with their values described.
 */
/** A well-formed id of one kind (its prefix and 22 base62 characters). */
export const id = (kind: IdKind) => z.string().regex(new RegExp(idPattern(kind)));
export const timestamp = z.iso.datetime().describe('ISO 8601 in UTC with milliseconds');
/** `{id, name}` of another record. */
export const ref = (kind: IdKind) => z.object({ id: id(kind), name: z.string() });
const customFields = z.record(z.string(), z.unknown());

export const contactObject = z.object({
  id: id('contact'),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  photoapp_username: z.string().nullable(),
  chatapp_jid: z.string().nullable(),
  socialmsg_psid: z.string().nullable(),
  socialmsg_name: z.string().nullable(),
  source: z.string().nullable().describe('chatapp, photoapp, socialmsg, manual, import or api'),
  avatar_url: z.string().nullable(),
  company: ref('company').nullable(),
  tags: z.array(z.string()),
  custom_fields: customFields,
  funnel_stage: z.string().nullable(),
  external_id: z.string().nullable().describe("the integrator's own id, unique per organization"),
  notes_count: z.number().int().min(0),
  deals_count: z.number().int().min(0),
  last_message_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const companyObject = z.object({
  id: id('company'),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  website: z.string().nullable(),
  sector: z.string().nullable(),
  size: z.string().nullable().describe('1-10, 11-50, 51-200, 201-500 or 500+'),
  city: z.string().nullable(),
  state: z.string().nullable(),
  assigned_to: ref('member').nullable(),
  tags: z.array(z.string()),
  custom_fields: customFields,
  external_id: z.string().nullable().describe("the integrator's own id, unique per organization"),
  contacts_count: z.number().int().min(0),
  deals_count: z.number().int().min(0),
  total_deals_value: z.number(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const dealObject = z.object({
  id: id('deal'),
  title: z.string(),
  description: z.string().nullable(),
  value: z.number(),
  currency: z.string(),
  status: z.enum(DEAL_STATUSES),
  funnel: ref('funnel'),
  stage: ref('stage'),
  contacts: z.array(ref('contact')),
  company: ref('company').nullable(),
  assigned_to: ref('member').nullable(),
  expected_close_date: timestamp.nullable(),
  probability: z.number().int().nullable(),
  lost_reason: z.string().nullable(),
  closed_at: timestamp.nullable(),
  tags: z.array(z.string()),
  custom_fields: customFields,
  notes_count: z.number().int().min(0),
  created_at: timestamp,
  updated_at: timestamp,
});

export const taskObject = z.object({
  id: id('task'),
  title: z.string(),
  description: z.string().nullable(),
  type: z.string().describe('todo, call, email, meeting or follow_up'),
  priority: z.string().describe('low, normal or high'),
  status: z.enum(TASK_STATUSES),
  due_at: timestamp.nullable(),
  completed_at: timestamp.nullable(),
  assigned_to: ref('member').nullable(),
  contact: ref('contact').nullable(),
  deal: z.object({ id: id('deal'), title: z.string() }).nullable(),
  company: ref('company').nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const noteObject = z.object({
  id: id('note'),
  content: z.string(),
  color: z.string(),
  category: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const conversationObject = z.object({
  id: id('conversation'),
  contact: ref('contact'),
  channel: z.enum(CHANNELS),
  chatapp_instance: z.object({ id: id('chatInstance'), name: z.string(), channel: z.enum(CHATAPP_KINDS) }).nullable(),
  status: z.enum(CONVERSATION_STATUSES),
  assigned_to: ref('member').nullable(),
  ai_agent: ref('aiAgent').nullable(),
  unread_count: z.number().int().min(0),
  last_message_at: timestamp.nullable(),
  last_message_preview: z.string().nullable().describe('the first 120 characters of the last message'),
  window_expires_at: timestamp.nullable(),
  closed_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const messageObject = z.object({
  id: id('message'),
  conversation_id: id('conversation'),
  contact_id: id('contact'),
  channel: z.enum(CHANNELS),
  direction: z.enum(['inbound', 'outbound']),
  type: z.string().describe('text, image, audio, video, document, template, sticker, location or unsupported'),
  content: z.string().nullable(),
  media: z.object({ url: z.string(), mime_type: z.string().nullable(), file_name: z.string().nullable() }).nullable(),
  template: z.object({ name: z.string(), language: z.string() }).nullable(),
  status: z.enum(MESSAGE_STATUSES),
  sender: z.object({
    type: z.string().describe('contact, member, ai_agent, api, broadcast or device'),
    id: z.string().nullable(),
    name: z.string().nullable(),
  }),
  external_id: z.string().nullable().describe("the provider's message id"),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  edited_at: timestamp.nullable(),
  created_at: timestamp,
});

export const chatInstanceObject = z.object({
  id: id('chatInstance'),
  name: z.string(),
  channel: z.string().describe('official or qrcode (photoapp and socialmsg pages also emit channel events)'),
  phone_number: z.string().nullable(),
  status: z.enum(INSTANCE_STATUSES),
  is_default: z.boolean(),
  warmup: z.object({ active: z.boolean(), daily_limit: z.number().int().nullable() }),
  created_at: timestamp,
  updated_at: timestamp,
});

export const templateObject = z.object({
  id: id('template'),
  instance_id: id('chatInstance'),
  name: z.string(),
  language: z.string(),
  category: z.string().describe('marketing, utility or authentication'),
  status: z.string().describe('the provider status: APPROVED, PENDING, REJECTED, PAUSED or DISABLED'),
  components: z.array(z.unknown()),
  variables: z.array(z.object({ key: z.string(), component: z.string() })),
  updated_at: timestamp,
});

const stats = z.object({
  total: z.number().int().min(0),
  sent: z.number().int().min(0),
  delivered: z.number().int().min(0),
  read: z.number().int().min(0),
  failed: z.number().int().min(0),
  excluded: z.number().int().min(0),
});

export const broadcastObject = z.object({
  id: id('broadcast'),
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(BROADCAST_STATUSES),
  chatapp_instances: z.array(z.object({ id: id('chatInstance'), name: z.string(), channel: z.enum(CHATAPP_KINDS) })),
  audience: z.object({
    type: z.enum(['all', 'tags', 'contacts']),
    tags: z.array(z.string()),
    tags_operator: z.enum(['or', 'and']).nullable(),
    contact_ids: z.array(z.string()),
    has_chatapp: z.boolean().nullable(),
    filters: z
      .object({
        source: z.string().nullable(),
        created_after: z.string().nullable(),
        created_before: z.string().nullable(),
        exclude_tags: z.array(z.string()),
      })
      .nullable(),
  }),
  message: z.object({ type: z.string(), content: z.string().nullable(), media_url: z.string().nullable() }).nullable(),
  cloud_template: z
    .object({
      template_id: z.string(),
      name: z.string(),
      language: z.string(),
      category: z.string(),
      variables: z.array(
        z.object({
          key: z.string(),
          component: z.string(),
          source_type: z.enum(['contact_field', 'static']),
          source_key: z.string().nullable(),
          fallback: z.string().nullable(),
          value: z.string().nullable(),
        }),
      ),
    })
    .nullable(),
  settings: z.object({ send_profile: z.enum(SEND_PROFILES) }),
  scheduled_at: timestamp.nullable(),
  started_at: timestamp.nullable(),
  completed_at: timestamp.nullable(),
  stats,
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const agentRunObject = z.object({
  id: id('agentRun'),
  agent: z.object({ id: id('aiAgent'), name: z.string(), type: z.enum(AGENT_TYPES) }),
  conversation_id: id('conversation'),
  trigger_event: z.string(),
  status: z.enum(RUN_STATUSES),
  skip_reason: z.enum(SKIP_REASONS).nullable(),
  error_message: z.string().nullable(),
  messages_sent: z.array(
    z.object({ message_id: id('message'), content: z.string(), sent_at: timestamp, delay_ms: z.number().int().min(0) }),
  ),
  handoff: z.object({ triggered: z.boolean(), reason: z.string(), summary: z.string() }).nullable(),
  usage: z.object({ tokens: z.number().int().min(0), cost_cents: z.number().int().min(0) }).nullable(),
  model: z.string().nullable(),
  duration_ms: z.number().int().min(0).nullable(),
  started_at: timestamp,
  completed_at: timestamp.nullable(),
});

export type ContactObject = z.infer<typeof contactObject>;
export type CompanyObject = z.infer<typeof companyObject>;
export type DealObject = z.infer<typeof dealObject>;
export type TaskObject = z.infer<typeof taskObject>;
export type NoteObject = z.infer<typeof noteObject>;
export type ConversationObject = z.infer<typeof conversationObject>;
export type MessageObject = z.infer<typeof messageObject>;
export type ChatInstanceObject = z.infer<typeof chatInstanceObject>;
export type TemplateObject = z.infer<typeof templateObject>;
export type BroadcastObject = z.infer<typeof broadcastObject>;
export type AgentRunObject = z.infer<typeof agentRunObject>;

/** A replay of stored events to one subscription (POST /v1/webhooks/{id}/replay). */
export const replayObject = z.object({
  id: id('replay'),
  webhook_id: id('webhook'),
  status: z.enum(['pending', 'running', 'completed', 'cancelled']),
  since: timestamp,
  until: timestamp,
  types: z.array(z.string()).describe('the kinds asked for; empty: every kind the subscription receives'),
  matched: z.number().int().min(0).describe('stored events of the window that the subscription receives'),
  delivered: z.number().int().min(0).describe('of those, delivered (a 2xx)'),
  failed: z.number().int().min(0).describe('of those, failed after every attempt'),
  created_at: timestamp,
  completed_at: timestamp.nullable(),
});

export type ReplayObject = z.infer<typeof replayObject>;
