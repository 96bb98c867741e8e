import { z } from 'zod';
import { isoDateTimeSchema, tagSchema, trimmedText } from './common';
import { CONTACT_SOURCES } from './contacts';
import { SEND_TYPES } from './messaging';
import { absent, documented, fieldIs, idOf, present } from './validation';

/** Broadcast statuses (catalogue §3 Broadcast, §4.1). */
export const BROADCAST_STATUSES = [
  'draft',
  'scheduled',
  'processing',
  'sending',
  'paused',
  'completed',
  'completed_with_errors',
  'failed',
  'cancelled',
] as const;
export type BroadcastStatus = (typeof BROADCAST_STATUSES)[number];

export const SEND_PROFILES = ['conservative', 'moderate', 'aggressive'] as const;
export type SendProfile = (typeof SEND_PROFILES)[number];

export const RECIPIENT_STATUSES = ['pending', 'sent', 'delivered', 'read', 'failed', 'excluded'] as const;
export const EXCLUSION_REASONS = ['marketing_opt_out', 'no_chatapp', 'duplicate'] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

/**
 * Contact fields a `contact_field` template variable may read: the contact's own fields, `first_name` (the first
 * word of the name) and any custom field as `custom_fields.<key>`.
 */
export const CONTACT_FIELD_KEYS = ['name', 'first_name', 'email', 'phone', 'source'] as const;
const CUSTOM_FIELD_KEY = /^custom_fields\.[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

const text = (max: number) => trimmedText(max);

/** Filters live only inside `audience` (spec §2): at the root of `audience` they are unknown fields, never ignored. */
const audienceFilters = documented(
  z
    .strictObject({
      source: z.enum(CONTACT_SOURCES).optional(),
      createdAfter: isoDateTimeSchema.optional(),
      createdBefore: isoDateTimeSchema.optional(),
      excludeTags: z.array(tagSchema).max(50, 'at most 50 tags').optional(),
    })
    .refine((f) => !f.createdAfter || !f.createdBefore || Date.parse(f.createdAfter) < Date.parse(f.createdBefore), {
      path: ['createdBefore'],
      message: 'must be later than createdAfter',
    }),
  // JSON Schema cannot compare two values.
  { description: 'createdBefore, when both are given, must be later than createdAfter.' },
);

export const audienceSchema = documented(
  z
    .strictObject({
      type: z.enum(['all', 'tags', 'contacts']),
      tags: z.array(tagSchema).max(50, 'at most 50 tags').optional(),
      tagsOperator: z.enum(['or', 'and']).optional(),
      contactIds: z.array(idOf('contact')).max(10_000, 'at most 10000 contacts; use a tag audience for more').optional(),
      hasChatapp: z.boolean().optional(),
      filters: audienceFilters.optional(),
    })
    .superRefine((audience, ctx) => {
      if (audience.type === 'tags' && !audience.tags?.length)
        ctx.addIssue({ code: 'custom', path: ['tags'], message: 'must name at least one tag when type is tags' });
      if (audience.type !== 'tags' && (audience.tags || audience.tagsOperator))
        ctx.addIssue({ code: 'custom', path: ['tags'], message: 'tags and tagsOperator are accepted only when type is tags' });
      if (audience.type === 'contacts' && !audience.contactIds?.length)
        ctx.addIssue({ code: 'custom', path: ['contactIds'], message: 'must name at least one contact when type is contacts' });
      if (audience.type !== 'contacts' && audience.contactIds)
        ctx.addIssue({ code: 'custom', path: ['contactIds'], message: 'is accepted only when type is contacts' });
    }),
  {
    allOf: [
      {
        if: fieldIs('type', 'tags'),
        then: { ...present('tags'), properties: { tags: { minItems: 1 } } },
        else: absent('tags', 'tagsOperator'),
      },
      {
        if: fieldIs('type', 'contacts'),
        then: { ...present('contactIds'), properties: { contactIds: { minItems: 1 } } },
        else: absent('contactIds'),
      },
    ],
  },
);

const templateVariable = documented(
  z
    .strictObject({
      key: trimmedText(64),
      component: z.string().regex(/^(header|body|button:\d{1,2})$/, 'must be header, body or button:N'),
      sourceType: z.enum(['contact_field', 'static']),
      sourceKey: z.string().max(80).optional(),
      fallback: z.string().max(1_024).optional(),
      value: z.string().max(1_024).optional(),
    })
    .superRefine((variable, ctx) => {
      if (variable.sourceType === 'contact_field') {
        if (!variable.sourceKey)
          ctx.addIssue({ code: 'custom', path: ['sourceKey'], message: 'is required when sourceType is contact_field' });
        else if (!(CONTACT_FIELD_KEYS as readonly string[]).includes(variable.sourceKey) && !CUSTOM_FIELD_KEY.test(variable.sourceKey))
          ctx.addIssue({
            code: 'custom',
            path: ['sourceKey'],
            message: `must be one of ${CONTACT_FIELD_KEYS.join(', ')} or custom_fields.<key>`,
          });
        // Spec §7 rule 2: refused before the broadcast is created, so no recipient ever gets an empty variable.
        if (variable.fallback === undefined || variable.fallback.trim() === '')
          ctx.addIssue({ code: 'custom', path: ['fallback'], message: 'is required when sourceType is contact_field' });
        if (variable.value !== undefined)
          ctx.addIssue({ code: 'custom', path: ['value'], message: 'is accepted only when sourceType is static' });
      } else {
        if (variable.value === undefined || variable.value === '')
          ctx.addIssue({ code: 'custom', path: ['value'], message: 'is required when sourceType is static' });
        if (variable.sourceKey !== undefined || variable.fallback !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['sourceKey'],
            message: 'sourceKey and fallback are accepted only when sourceType is contact_field',
          });
      }
    }),
  {
    allOf: [
      {
        if: fieldIs('sourceType', 'contact_field'),
        then: {
          required: ['sourceKey', 'fallback'],
          properties: {
            sourceKey: { anyOf: [{ enum: [...CONTACT_FIELD_KEYS] }, { pattern: CUSTOM_FIELD_KEY.source }] },
            fallback: { pattern: '\\S' },
          },
          ...absent('value'),
        },
        else: { ...present('value'), properties: { value: { minLength: 1 } }, ...absent('sourceKey', 'fallback') },
      },
    ],
  },
);

export const cloudTemplateSchema = z.strictObject({
  templateId: idOf('template'),
  language: trimmedText(15, 2).describe('a language code such as en_US'),
  variables: documented(z.array(templateVariable).max(50, 'at most 50 variables'), {
    // JSON Schema's uniqueItems compares whole items, not one pair of their fields.
    description: 'A (component, key) pair may appear once.',
  })
    .optional()
    .superRefine((variables, ctx) => {
      const seen = new Set<string>();
      for (const [index, variable] of (variables ?? []).entries()) {
        const key = `${variable.component}:${variable.key}`;
        if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [index, 'key'], message: `is given twice for ${variable.component}` });
        seen.add(key);
      }
    }),
});

const broadcastMessage = documented(
  z
    .strictObject({
      type: z.enum(SEND_TYPES).default('text'),
      content: text(4_096).optional(),
      mediaUrl: z.url('must be a URL').max(2_048).optional(),
    })
    .superRefine((message, ctx) => {
      if (message.type === 'text' && !message.content)
        ctx.addIssue({ code: 'custom', path: ['content'], message: 'is required for a text message' });
      if (message.type !== 'text' && !message.mediaUrl)
        ctx.addIssue({ code: 'custom', path: ['mediaUrl'], message: `is required for type ${message.type}` });
      if (message.type === 'text' && message.mediaUrl)
        ctx.addIssue({ code: 'custom', path: ['mediaUrl'], message: 'is accepted only with a media type' });
    }),
  // type defaults to text, so an absent type takes the text branch.
  { allOf: [{ if: fieldIs('type', 'text'), then: { ...present('content'), ...absent('mediaUrl') }, else: present('mediaUrl') }] },
);

const settingsSchema = z.strictObject({ sendProfile: z.enum(SEND_PROFILES).optional() });

const instanceIds = z
  .array(idOf('chatInstance'))
  .min(1, 'must name at least one number')
  .max(20, 'at most 20 numbers')
  .transform((ids) => [...new Set(ids)]);

const broadcastFields = {
  name: text(200),
  description: trimmedText(2_000, 0).nullable(),
  chatappInstanceIds: instanceIds,
  audience: audienceSchema,
  message: broadcastMessage.nullable(),
  cloudTemplate: cloudTemplateSchema.nullable(),
  settings: settingsSchema,
};

/** #59 `BroadcastInput` (camelCase, catalogue §3). Rules that need stored records are checked by the service. */
/** The documented example of a new broadcast: a QR-code number sending text to a tag. */
const BROADCAST_EXAMPLE = {
  name: 'Spring sale',
  chatappInstanceIds: ['ci_Qw3Er5Ty7Ui9Op1As2Df4G'],
  audience: { type: 'tags', tags: ['vip'], filters: { excludeTags: ['churned'] } },
  message: { type: 'text', content: '20% off this week' },
  settings: { sendProfile: 'moderate' },
};

export const createBroadcastBody = documented(
  z.strictObject({
    name: broadcastFields.name,
    description: broadcastFields.description.optional(),
    chatappInstanceIds: broadcastFields.chatappInstanceIds,
    audience: broadcastFields.audience,
    message: broadcastFields.message.optional(),
    cloudTemplate: broadcastFields.cloudTemplate.optional(),
    settings: broadcastFields.settings.optional(),
  }),
  { examples: [BROADCAST_EXAMPLE] },
);

/** #62: any subset of `BroadcastInput`; objects and arrays sent replace the stored ones. */
export const updateBroadcastBody = documented(
  z.strictObject({
    name: broadcastFields.name.optional(),
    description: broadcastFields.description.optional(),
    chatappInstanceIds: broadcastFields.chatappInstanceIds.optional(),
    audience: broadcastFields.audience.optional(),
    message: broadcastFields.message.optional(),
    cloudTemplate: broadcastFields.cloudTemplate.optional(),
    settings: broadcastFields.settings.optional(),
  }),
  { examples: [{ name: 'Spring sale (final)', message: BROADCAST_EXAMPLE.message }] },
);

/** #60. `cloudTemplate` lets the estimate apply the marketing opt-out (spec §4 rule 1); `chatappInstanceIds` the channel. */
export const estimateAudienceBody = documented(
  z.strictObject({
    audience: audienceSchema,
    cloudTemplate: cloudTemplateSchema.optional(),
    chatappInstanceIds: instanceIds.optional(),
  }),
  { examples: [{ audience: BROADCAST_EXAMPLE.audience }] },
);

/** #64 and #67. */
export const launchBroadcastBody = z.strictObject({ confirmWarmupOverride: z.boolean().optional() });

/** #65. `scheduledAt` must lie in the future; the service checks it against its clock. */
export const scheduleBroadcastBody = z.strictObject({
  scheduledAt: isoDateTimeSchema,
  confirmWarmupOverride: z.boolean().optional(),
});

export const broadcastListQuery = {
  status: z.enum(BROADCAST_STATUSES).optional(),
  created_after: isoDateTimeSchema.optional(),
  created_before: isoDateTimeSchema.optional(),
};

export const recipientListQuery = {
  status: z.enum(RECIPIENT_STATUSES).optional(),
};

export type AudienceInput = z.infer<typeof audienceSchema>;
export type CloudTemplateInput = z.infer<typeof cloudTemplateSchema>;
export type CreateBroadcastBody = z.infer<typeof createBroadcastBody>;
export type UpdateBroadcastBody = z.infer<typeof updateBroadcastBody>;
export type EstimateAudienceBody = z.infer<typeof estimateAudienceBody>;
