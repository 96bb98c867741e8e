import { newId } from '@crm/shared';
import type { WebhookRecord } from '../../services/webhooks/src/repository/webhook.repository';

/** A stored subscription of `orgId` to contact.created, active, as tests insert or hand to a dispatcher. */
export const webhookRecord = (orgId: string, fields: Partial<WebhookRecord> = {}): WebhookRecord => ({
  id: newId('webhook'),
  org_id: orgId,
  name: 'Receiver',
  url: 'https://hooks.example/receive',
  events: ['contact.created'],
  status: 'active',
  secret: 'whsec_plain-secret-value',
  previous_secret: null,
  previous_secret_expires_at: null,
  consecutive_failures: 0,
  last_delivery_at: null,
  last_failure_at: null,
  last_failure_reason: null,
  paused_reason: null,
  key_id: null,
  created_at: new Date(),
  updated_at: new Date(),
  ...fields,
});
