import {
  CHANNELS,
  CONVERSATION_STATUSES,
  INSTANCE_STATUSES,
  MESSAGE_STATUSES,
  MESSAGE_TYPES,
  TEMPLATE_CATEGORIES,
  TEMPLATE_STATUSES,
} from '@crm/shared/schemas';
import { z } from 'zod';
import { AiAgentRef, component, ContactRef, count, id, MemberRef, nullable, orEmpty, timestamp } from './registry';

export const Conversation = component(
  'Conversation',
  z.object({
    id: id('conversation'),
    contact: ContactRef,
    channel: z.enum(CHANNELS),
    chatapp_instance: nullable(z.object({ id: id('chatInstance'), name: z.string(), channel: z.enum(['qrcode', 'official']) })).describe(
      'chatapp conversations only',
    ),
    status: z.enum(CONVERSATION_STATUSES),
    assigned_to: nullable(MemberRef),
    ai_agent: nullable(AiAgentRef).describe('the agent that currently answers'),
    unread_count: count.default(0),
    last_message_at: nullable(timestamp),
    last_message_preview: nullable(z.string()).describe('first 120 characters of the last message'),
    window_expires_at: nullable(timestamp).describe(
      "official numbers: end of the 24-hour free-text window opened by the contact's last message",
    ),
    closed_at: nullable(timestamp),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A conversation: one per contact, channel and number. Closed conversations open again when a message arrives or is sent.',
);

export const Message = component(
  'Message',
  z.object({
    id: id('message'),
    conversation_id: id('conversation'),
    contact_id: id('contact'),
    channel: z.enum(CHANNELS),
    direction: z.enum(['inbound', 'outbound']),
    type: z.enum(MESSAGE_TYPES),
    content: nullable(z.string()),
    media: nullable(z.object({ url: z.string(), mime_type: nullable(z.string()), file_name: nullable(z.string()) })),
    template: nullable(z.object({ name: z.string(), language: z.string() })),
    status: z.enum(MESSAGE_STATUSES).describe('outbound: queued, sent, delivered, read, failed; inbound: received'),
    sender: z.object({
      type: z.enum(['contact', 'member', 'ai_agent', 'api', 'broadcast', 'device']),
      id: nullable(z.string()),
      name: nullable(z.string()),
    }),
    external_id: nullable(z.string()).describe("the provider's message id"),
    error: nullable(z.object({ code: z.string(), message: z.string() })).describe(
      'e.g. {code: "131042"} when the provider failed a sent message',
    ),
    edited_at: nullable(timestamp),
    created_at: timestamp,
  }),
  'A message. status "sent" does not guarantee delivery: provider error 131042 arrives later as status "failed".',
);

export const ChatInstance = component(
  'ChatInstance',
  z.object({
    id: id('chatInstance'),
    name: z.string(),
    channel: z.enum(['official', 'qrcode']),
    phone_number: nullable(z.string()),
    status: z.enum(INSTANCE_STATUSES),
    is_default: z.boolean().default(false),
    warmup: z.object({ active: z.boolean().default(false), daily_limit: nullable(count) }),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A chatapp number. `channel` tells whether it accepts templates (official) or free text at any time (qrcode).',
);

export const Template = component(
  'Template',
  z.object({
    id: id('template'),
    instance_id: id('chatInstance'),
    name: z.string(),
    language: z.string(),
    category: z.enum(TEMPLATE_CATEGORIES),
    status: z.enum(TEMPLATE_STATUSES),
    components: orEmpty(
      z.array(
        z
          .object({ type: z.string() })
          .catchall(z.unknown())
          .describe("the provider's component: type (HEADER, BODY, FOOTER, BUTTONS), text, …"),
      ),
      [],
    ),
    variables: z.array(z.object({ key: z.string(), component: z.string() })).default([]),
    updated_at: timestamp,
  }),
  'A template of an official number. Only APPROVED templates can be sent, in exactly their language.',
);
