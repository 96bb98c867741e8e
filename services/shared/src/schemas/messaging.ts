import { z } from 'zod';
import { isoDateTimeSchema, trimmedText } from './common';
import { absent, documented, fieldIs, idOf, present } from './validation';

/** Channels of a conversation or a send (spec §2). */
export const CHANNELS = ['chatapp', 'photoapp', 'socialmsg'] as const;
export type Channel = (typeof CHANNELS)[number];

/** Kinds of number or page the messaging service connects; `qrcode` and `official` are the chatapp numbers. */
export const INSTANCE_KINDS = ['qrcode', 'official', 'photoapp', 'socialmsg'] as const;
export type InstanceKind = (typeof INSTANCE_KINDS)[number];
export const CHATAPP_KINDS = ['qrcode', 'official'] as const;

export const INSTANCE_STATUSES = ['connected', 'connecting', 'disconnected'] as const;
export const CONVERSATION_STATUSES = ['open', 'closed'] as const;
export const TEMPLATE_STATUSES = ['APPROVED', 'PENDING', 'REJECTED', 'PAUSED', 'DISABLED'] as const;
export const TEMPLATE_CATEGORIES = ['marketing', 'utility', 'authentication'] as const;
export const MESSAGE_TYPES = ['text', 'image', 'audio', 'video', 'document', 'template', 'sticker', 'location', 'unsupported'] as const;
export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'read', 'failed', 'received'] as const;
export const SEND_TYPES = ['text', 'image', 'audio', 'video', 'document'] as const;

/** POST /v1/messages/send (#53). Channel-dependent rules (window, templates, numbers) live in the service. */
export const sendMessageBody = documented(
  z
    .strictObject({
      contact_id: idOf('contact'),
      channel: z.enum(CHANNELS),
      type: z.enum(SEND_TYPES).default('text'),
      content: trimmedText(4_096).optional(),
      media_url: z.url('must be a URL').max(2_048).optional(),
      conversation_id: idOf('conversation').optional(),
      instance_id: idOf('chatInstance').optional(),
      template_name: trimmedText(512).optional(),
      template_language: trimmedText(15, 2).describe('a language code such as en_US').optional(),
      template_components: z.array(z.record(z.string(), z.unknown())).max(20, 'at most 20 components').optional(),
    })
    .superRefine((body, ctx) => {
      if (body.type !== 'text' && !body.media_url)
        ctx.addIssue({ code: 'custom', path: ['media_url'], message: `is required for type ${body.type}` });
      if (body.type === 'text' && body.media_url)
        ctx.addIssue({ code: 'custom', path: ['media_url'], message: 'is accepted only with a media type' });
      if (body.template_name && !body.template_language)
        ctx.addIssue({ code: 'custom', path: ['template_language'], message: 'is required with template_name' });
      if (!body.template_name && (body.template_language || body.template_components)) {
        ctx.addIssue({ code: 'custom', path: ['template_name'], message: 'is required with template_language or template_components' });
      }
      if (!body.template_name && body.type === 'text' && !body.content)
        ctx.addIssue({ code: 'custom', path: ['content'], message: 'is required for a text message' });
    }),
  // type defaults to text, so an absent type takes the text branches.
  {
    allOf: [
      { if: fieldIs('type', 'text'), then: absent('media_url'), else: present('media_url') },
      {
        if: present('template_name'),
        then: present('template_language'),
        else: absent('template_language', 'template_components'),
      },
      { if: { ...fieldIs('type', 'text'), ...absent('template_name') }, then: present('content') },
    ],
    examples: [
      { contact_id: 'ct_Qw3Er5Ty7Ui9Op1As2Df4G', channel: 'chatapp', instance_id: 'ci_Qw3Er5Ty7Ui9Op1As2Df4G', content: 'Happy to help!' },
    ],
  },
);

/** POST /v1/conversations/{id}/assign (#51): a member id, or null to unassign. */
export const assignConversationBody = z.strictObject({ assigned_to: idOf('member').nullable() });

export const conversationListQuery = {
  updated_after: isoDateTimeSchema.optional(),
  status: z.enum(CONVERSATION_STATUSES).optional(),
  assigned_to: idOf('member').optional(),
  contact_id: idOf('contact').optional(),
  channel: z.enum(CHANNELS).optional(),
};

export type SendMessageBody = z.infer<typeof sendMessageBody>;
export type AssignConversationBody = z.infer<typeof assignConversationBody>;
