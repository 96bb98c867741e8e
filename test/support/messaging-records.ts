import { newId } from '@crm/shared';
import { EMPTY_STATS, type BroadcastRecord } from '../../services/messaging/src/repository/broadcast.repository';
import type { ChatInstanceRecord } from '../../services/messaging/src/repository/chat-instance.repository';
import type { ConversationTouch } from '../../services/messaging/src/repository/conversation.repository';
import type { MessageRecord } from '../../services/messaging/src/repository/message.repository';
import type { RecipientRecord } from '../../services/messaging/src/repository/recipient.repository';

/** Complete messaging records for the integration tier, with what a test names overriding the defaults. */
export const instanceRecord = (orgId: string, fields: Partial<ChatInstanceRecord> = {}): ChatInstanceRecord => ({
  id: newId('chatInstance'),
  org_id: orgId,
  name: 'Sales line',
  kind: 'qrcode',
  provider_ref: newId('request'),
  phone_number: '+15550100',
  status: 'connected',
  is_default: false,
  warmup: { active: false, daily_limit: null },
  created_at: new Date(),
  updated_at: new Date(),
  ...fields,
});

export const touchOf = (
  orgId: string,
  contactId: string,
  instanceId: string,
  fields: Partial<ConversationTouch> = {},
): ConversationTouch => ({
  org_id: orgId,
  contact: { id: contactId, name: 'Ada' },
  channel: 'chatapp',
  instance: { id: instanceId, name: 'Sales line', kind: 'qrcode' },
  at: new Date(),
  preview: 'hello',
  inbound: true,
  window_expires_at: null,
  now: new Date(),
  ...fields,
});

export const messageRecord = (orgId: string, conversationId: string, fields: Partial<MessageRecord> = {}): MessageRecord => ({
  id: newId('message'),
  org_id: orgId,
  conversation_id: conversationId,
  contact_id: newId('contact'),
  channel: 'chatapp',
  instance_id: newId('chatInstance'),
  direction: 'outbound',
  type: 'text',
  content: 'hello',
  media: null,
  template: null,
  status: 'queued',
  sender: { type: 'user', id: null, name: null },
  external_id: null,
  error: null,
  edited_at: null,
  created_at: new Date(),
  updated_at: new Date(),
  ...fields,
});

export const broadcastRecord = (orgId: string, fields: Partial<BroadcastRecord> = {}): BroadcastRecord => ({
  id: newId('broadcast'),
  org_id: orgId,
  name: 'Spring sale',
  description: null,
  status: 'draft',
  instances: [],
  audience: { type: 'all', tags: [], tags_operator: null, contact_ids: [], has_chatapp: null, filters: null },
  message: { type: 'text', content: 'hi', media_url: null },
  cloud_template: null,
  settings: { send_profile: 'conservative' },
  scheduled_at: null,
  started_at: null,
  completed_at: null,
  stats: { ...EMPTY_STATS },
  error: null,
  warmup_override: false,
  materialized: false,
  recipients_changed_at: null,
  stats_at: null,
  created_at: new Date(),
  updated_at: new Date(),
  ...fields,
});

export const recipientRecord = (
  orgId: string,
  broadcastId: string,
  seq: number,
  fields: Partial<RecipientRecord> = {},
): RecipientRecord => ({
  id: `${broadcastId}:ct_${seq}`,
  org_id: orgId,
  broadcast_id: broadcastId,
  seq,
  contact: { id: `ct_${seq}`, name: `Contact ${seq}` },
  instance_id: 'ci_1',
  address: `+1555000${seq}`,
  status: 'pending',
  exclusion_reason: null,
  message_id: newId('message'),
  params: {},
  error: null,
  sent_at: null,
  updated_at: new Date(),
  ...fields,
});
