import {
  BROADCAST_STATUSES,
  CONTACT_SOURCES,
  EXCLUSION_REASONS,
  RECIPIENT_STATUSES,
  SEND_PROFILES,
  SEND_TYPES,
  TEMPLATE_CATEGORIES,
} from '@crm/shared/schemas';
import { z } from 'zod';
import { component, ContactRef, count, id, nullable, timestamp } from './registry';

const ErrorInfo = z.object({ code: z.string(), message: z.string() });

export const Broadcast = component(
  'Broadcast',
  z.object({
    id: id('broadcast'),
    name: z.string(),
    description: nullable(z.string()),
    status: z.enum(BROADCAST_STATUSES),
    chatapp_instances: z
      .array(z.object({ id: id('chatInstance'), name: z.string(), channel: z.enum(['qrcode', 'official']) }))
      .describe('the numbers it sends from: all qrcode or all official'),
    audience: z.object({
      type: z.enum(['all', 'tags', 'contacts']),
      tags: z.array(z.string()).default([]),
      tags_operator: nullable(z.enum(['or', 'and'])),
      contact_ids: z.array(id('contact')).default([]),
      has_chatapp: nullable(z.boolean()),
      filters: nullable(
        z.object({
          source: nullable(z.enum(CONTACT_SOURCES)),
          created_after: nullable(timestamp),
          created_before: nullable(timestamp),
          exclude_tags: z.array(z.string()).default([]),
        }),
      ),
    }),
    message: nullable(z.object({ type: z.enum(SEND_TYPES), content: nullable(z.string()), media_url: nullable(z.url()) })),
    cloud_template: nullable(
      z.object({
        template_id: id('template'),
        name: z.string(),
        language: z.string(),
        category: z.enum(TEMPLATE_CATEGORIES),
        variables: z
          .array(
            z.object({
              key: z.string(),
              component: z.string(),
              source_type: z.enum(['contact_field', 'static']),
              source_key: nullable(z.string()),
              fallback: nullable(z.string()),
              value: nullable(z.string()),
            }),
          )
          .default([]),
      }),
    ),
    settings: z.object({ send_profile: z.enum(SEND_PROFILES) }),
    scheduled_at: nullable(timestamp),
    started_at: nullable(timestamp),
    completed_at: nullable(timestamp),
    stats: z
      .object({
        total: count.default(0),
        sent: count.default(0),
        delivered: count.default(0),
        read: count.default(0),
        failed: count.default(0),
        excluded: count.default(0),
      })
      .describe(
        'total: recipients not excluded; sent: sends the provider accepted (also those it failed later); delivered includes read; failed: refused sends and failed deliveries',
      ),
    error: nullable(ErrorInfo).describe('why the broadcast paused or failed on its own, e.g. CHANNEL_DISCONNECTED'),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'A broadcast (mass send). Request bodies are camelCase (BroadcastInput); responses are snake_case.',
);

export const AudienceEstimate = component(
  'AudienceEstimate',
  z.object({
    estimated_count: count.default(0).describe('contacts that will receive the broadcast'),
    estimated_exclusions: count.default(0).describe('contacts the exclusion rules leave out'),
    exclusions_by_reason: z.object({
      marketing_opt_out: count.default(0),
      no_chatapp: count.default(0),
      duplicate: count.default(0),
    }),
  }),
  'Without a marketing cloudTemplate the opt-out rule does not apply, so the count can be higher than the official send reaches.',
);

export const BroadcastRecipient = component(
  'BroadcastRecipient',
  z.object({
    contact: ContactRef,
    status: z.enum(RECIPIENT_STATUSES),
    message_id: nullable(id('message')).describe('set once the provider accepted the send'),
    exclusion_reason: nullable(z.enum(EXCLUSION_REASONS)),
    error: nullable(ErrorInfo).describe('the provider error, e.g. {code: "131042"}'),
    sent_at: nullable(timestamp),
  }),
  'One contact of a launched broadcast, in send order.',
);
