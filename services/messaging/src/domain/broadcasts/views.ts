import type { AudienceEstimate, Recipient } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import { iso, isoOrNull, type Nullable } from '@crm/shared';
import type { BroadcastObject } from '@crm/shared/events';
import type { BroadcastAudience, BroadcastRecord } from '../../repository/broadcast.repository';
import type { RecipientRecord } from '../../repository/recipient.repository';

export type BroadcastView = BroadcastObject;
export type RecipientView = Nullable<Recipient>;
export type AudienceEstimateView = Nullable<AudienceEstimate>;

export function viewBroadcast(record: BroadcastRecord): BroadcastView {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    status: record.status,
    chatapp_instances: record.instances,
    audience: viewAudience(record.audience),
    message: record.message,
    cloud_template: record.cloud_template,
    settings: record.settings,
    scheduled_at: isoOrNull(record.scheduled_at),
    started_at: isoOrNull(record.started_at),
    completed_at: isoOrNull(record.completed_at),
    stats: record.stats,
    error: record.error,
    created_at: iso(record.created_at),
    updated_at: iso(record.updated_at),
  };
}

/** Filter dates in UTC: broadcasts stored before requests' dates were normalized kept them as sent (`…-05:00`). */
function viewAudience(audience: BroadcastAudience): BroadcastAudience {
  const { filters } = audience;
  if (!filters) return audience;
  const utc = (value: string | null) => (value === null ? null : new Date(value).toISOString());
  return { ...audience, filters: { ...filters, created_after: utc(filters.created_after), created_before: utc(filters.created_before) } };
}

export function viewRecipient(record: RecipientRecord): RecipientView {
  return {
    contact: record.contact,
    status: record.status,
    // The message exists once the provider accepted the send.
    message_id: record.sent_at ? record.message_id : null,
    exclusion_reason: record.exclusion_reason,
    error: record.error,
    sent_at: isoOrNull(record.sent_at),
  };
}
