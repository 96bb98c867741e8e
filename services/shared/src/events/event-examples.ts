import type {
  AgentRunObject,
  BroadcastObject,
  ChatInstanceObject,
  CompanyObject,
  ContactObject,
  ConversationObject,
  DealObject,
  MessageObject,
  NoteObject,
  TaskObject,
  TemplateObject,
  ReplayObject,
} from './event-objects';

/**
 * Realistic records of one demo organization, for the catalogue's examples: the OpenAPI document shows them and
 * POST /v1/webhooks/{id}/test sends them. Ids are well formed but belong to no record; times are relative to `now`.
 */
const at = (now: Date, offsetMs = 0) => new Date(now.getTime() + offsetMs).toISOString();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const EXAMPLE_IDS = {
  contact: 'ct_3fK9wLq2XbN8vR1mT6yHcE',
  mergedContact: 'ct_7bV2nQ8xLp4KdR1wZ5tYcF',
  company: 'co_8HnQ2vLx5KdP1wRz7TbYcM',
  deal: 'dl_5PzR8mKq1WxN3vT7bLcYdE',
  funnel: 'fn_2LqW9xTz4RkB7nVm1PcHsD',
  otherFunnel: 'fn_9OlP8iKu7JyH6gTf5RdEwS',
  stage: 'st_6YtR3kLp8WqN2xZm5VbCdF',
  previousStage: 'st_1QaZ2wSx3EdC4rFv5TgBnH',
  member: 'mb_7Tq2RkXw9LmB4cVnP0sHdA',
  task: 'tk_9WmQ4zLx2RkT8nVb1PcYsH',
  note: 'nt_2xZm5VbCdF6YtR3kLp8WqN',
  conversation: 'cv_4RkT8nVb1PcYsH9WmQ4zLx',
  message: 'msg_7nVb1PcYsH9WmQ4zLx4RkT',
  chatInstance: 'ci_1PcYsH9WmQ4zLx4RkT8nVb',
  template: 'tpl_3EdC4rFv5TgBnH1QaZ2wSx',
  broadcast: 'bc_5TgBnH1QaZ2wSx3EdC4rFv',
  agent: 'ag_4rFv5TgBnH1QaZ2wSx3EdC',
  agentRun: 'run_8iKu7JyH6gTf5RdEwS9OlP',
  webhook: 'wh_6gTf5RdEwS9OlP8iKu7JyH',
  replay: 'rpl_2wSx3EdC4rFv5TgBnH1QaZ',
} as const;

const ids = EXAMPLE_IDS;
export const SELLER = { id: ids.member, name: 'Ana Souza' };
export const MARIA = { id: ids.contact, name: 'Maria Oliveira' };

export const exampleContact = (now: Date): ContactObject => ({
  id: ids.contact,
  name: 'Maria Oliveira',
  email: 'maria.oliveira@example.com',
  phone: '+5511987654321',
  photoapp_username: null,
  chatapp_jid: '5511987654321@c.chatapp',
  socialmsg_psid: null,
  socialmsg_name: null,
  source: 'api',
  avatar_url: null,
  company: { id: ids.company, name: 'Padaria Central' },
  tags: ['lead', 'vip'],
  custom_fields: { plan_interest: 'pro' },
  funnel_stage: null,
  external_id: 'shop-10482',
  notes_count: 1,
  deals_count: 1,
  last_message_at: at(now, -HOUR),
  created_at: at(now, -30 * DAY),
  updated_at: at(now),
});

export const exampleCompany = (now: Date): CompanyObject => ({
  id: ids.company,
  name: 'Padaria Central',
  email: 'contato@padariacentral.example',
  phone: '+551133334444',
  website: 'https://padariacentral.example',
  sector: 'Food & beverage',
  size: '11-50',
  city: 'São Paulo',
  state: 'SP',
  assigned_to: SELLER,
  tags: ['b2b'],
  custom_fields: {},
  external_id: null,
  contacts_count: 1,
  deals_count: 1,
  total_deals_value: 4800,
  created_at: at(now, -60 * DAY),
  updated_at: at(now),
});

export const exampleDeal = (now: Date): DealObject => ({
  id: ids.deal,
  title: 'Annual plan – Padaria Central',
  description: null,
  value: 4800,
  currency: 'BRL',
  status: 'open',
  funnel: { id: ids.funnel, name: 'Sales' },
  stage: { id: ids.stage, name: 'Proposal' },
  contacts: [MARIA],
  company: { id: ids.company, name: 'Padaria Central' },
  assigned_to: SELLER,
  expected_close_date: at(now, 14 * DAY),
  probability: 60,
  lost_reason: null,
  closed_at: null,
  tags: [],
  custom_fields: {},
  notes_count: 0,
  created_at: at(now, -7 * DAY),
  updated_at: at(now),
});

export const exampleTask = (now: Date): TaskObject => ({
  id: ids.task,
  title: 'Call Maria about the proposal',
  description: null,
  type: 'call',
  priority: 'high',
  status: 'open',
  due_at: at(now),
  completed_at: null,
  assigned_to: SELLER,
  contact: MARIA,
  deal: { id: ids.deal, title: 'Annual plan – Padaria Central' },
  company: null,
  created_at: at(now, -DAY),
  updated_at: at(now, -DAY),
});

export const exampleNote = (now: Date): NoteObject => ({
  id: ids.note,
  content: 'Asked for a discount on the annual plan.',
  color: 'yellow',
  category: 'follow_up',
  created_at: at(now),
  updated_at: at(now),
});

export const exampleConversation = (now: Date): ConversationObject => ({
  id: ids.conversation,
  contact: MARIA,
  channel: 'chatapp',
  chatapp_instance: { id: ids.chatInstance, name: 'Sales number', channel: 'official' },
  status: 'open',
  assigned_to: SELLER,
  ai_agent: null,
  unread_count: 1,
  last_message_at: at(now),
  last_message_preview: 'Hi! Is the annual plan still 10% off?',
  window_expires_at: at(now, DAY),
  closed_at: null,
  created_at: at(now, -DAY),
  updated_at: at(now),
});

export const exampleMessage = (now: Date, direction: 'inbound' | 'outbound'): MessageObject => ({
  id: ids.message,
  conversation_id: ids.conversation,
  contact_id: ids.contact,
  channel: 'chatapp',
  direction,
  type: 'text',
  content: direction === 'inbound' ? 'Hi! Is the annual plan still 10% off?' : 'Yes, until Friday. Shall I send the proposal?',
  media: null,
  template: null,
  status: direction === 'inbound' ? 'received' : 'sent',
  sender: direction === 'inbound' ? { type: 'contact', ...MARIA } : { type: 'api', id: null, name: null },
  external_id: 'wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNFQjBDMEQ3',
  error: null,
  edited_at: null,
  created_at: at(now),
});

/** A sent message after the provider reported `status`. */
export const exampleStatusMessage = (now: Date, status: 'delivered' | 'read' | 'failed'): MessageObject => ({
  ...exampleMessage(now, 'outbound'),
  status,
  error: status === 'failed' ? { code: '131042', message: 'Business eligibility payment issue' } : null,
});

export const exampleChatInstance = (now: Date, status: ChatInstanceObject['status'] = 'connected'): ChatInstanceObject => ({
  id: ids.chatInstance,
  name: 'Sales number',
  channel: 'qrcode',
  phone_number: '+5511912345678',
  status,
  is_default: true,
  warmup: { active: false, daily_limit: null },
  created_at: at(now, -90 * DAY),
  updated_at: at(now),
});

export const exampleTemplate = (now: Date, status: string): TemplateObject => ({
  id: ids.template,
  instance_id: ids.chatInstance,
  name: 'order_update',
  language: 'pt_BR',
  category: 'utility',
  status,
  components: [{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} is on its way.' }],
  variables: [
    { key: '1', component: 'body' },
    { key: '2', component: 'body' },
  ],
  updated_at: at(now),
});

export const exampleBroadcast = (now: Date, status: BroadcastObject['status']): BroadcastObject => {
  const done = status !== 'sending';
  return {
    id: ids.broadcast,
    name: 'Black Friday',
    description: null,
    status,
    chatapp_instances: [{ id: ids.chatInstance, name: 'Sales number', channel: 'official' }],
    audience: { type: 'tags', tags: ['vip'], tags_operator: 'or', contact_ids: [], has_chatapp: true, filters: null },
    message: null,
    cloud_template: { template_id: ids.template, name: 'black_friday', language: 'pt_BR', category: 'marketing', variables: [] },
    settings: { send_profile: 'moderate' },
    scheduled_at: null,
    started_at: at(now, done ? -HOUR : 0),
    completed_at: done ? at(now) : null,
    stats: done
      ? { total: 1200, sent: 1187, delivered: 1150, read: 820, failed: 13, excluded: 20 }
      : { total: 1200, sent: 0, delivered: 0, read: 0, failed: 0, excluded: 20 },
    error: status === 'failed' ? { code: 'CHANNEL_DISCONNECTED', message: 'The number went offline.' } : null,
    created_at: at(now, -DAY),
    updated_at: at(now),
  };
};

export const exampleAgentRun = (now: Date, outcome: 'completed' | 'failed' | 'handoff'): AgentRunObject => ({
  id: ids.agentRun,
  agent: { id: ids.agent, name: 'Sales assistant', type: 'sales' },
  conversation_id: ids.conversation,
  trigger_event: 'message.received.from_contact',
  status: outcome === 'failed' ? 'failed' : 'completed',
  skip_reason: null,
  error_message: outcome === 'failed' ? 'The model provider answered 503 three times.' : null,
  messages_sent:
    outcome === 'completed'
      ? [{ message_id: ids.message, content: 'Yes, until Friday. Shall I send the proposal?', sent_at: at(now), delay_ms: 1500 }]
      : [],
  handoff: outcome === 'handoff' ? { triggered: true, reason: 'keywords', summary: 'The contact asks for a discount.' } : null,
  usage: outcome === 'failed' ? null : { tokens: 412, cost_cents: 1 },
  model: 'gpt-4o-mini',
  duration_ms: 2300,
  started_at: at(now, -2300),
  completed_at: at(now),
});

export const exampleReplay = (now: Date): ReplayObject => ({
  id: ids.replay,
  webhook_id: ids.webhook,
  status: 'completed',
  since: at(now, -2 * HOUR),
  until: at(now, -HOUR),
  types: [],
  matched: 42,
  delivered: 41,
  failed: 1,
  created_at: at(now, -10 * 60_000),
  completed_at: at(now),
});
