/**
 * Realistic example `data` for every event kind, sent by POST /v1/webhooks/{id}/test. The shapes follow catalogue §3:
 * records as their read routes return them, `previous` on changes, `{object: {id}}` on deletes, tag and note events
 * as documented in the README. Ids are well-formed but belong to no record.
 */
type Data = Record<string, unknown>;

const at = (now: Date) => now.toISOString();
const ref = (id: string, name: string) => ({ id, name });
const SELLER = ref('mb_7Tq2RkXw9LmB4cVnP0sHdA', 'Ana Souza');

function contact(now: Date): Data {
  return {
    id: 'ct_3fK9wLq2XbN8vR1mT6yHcE',
    name: 'Maria Oliveira',
    email: 'maria.oliveira@example.com',
    phone: '+5511987654321',
    photoapp_username: null,
    chatapp_jid: '5511987654321@c.us',
    socialmsg_psid: null,
    socialmsg_name: null,
    source: 'api',
    avatar_url: null,
    company: ref('co_8HnQ2vLx5KdP1wRz7TbYcM', 'Padaria Central'),
    tags: ['lead', 'vip'],
    custom_fields: { plan_interest: 'pro' },
    funnel_stage: null,
    notes_count: 1,
    deals_count: 1,
    last_message_at: at(now),
    created_at: at(now),
    updated_at: at(now),
  };
}

function company(now: Date): Data {
  return {
    id: 'co_8HnQ2vLx5KdP1wRz7TbYcM',
    name: 'Padaria Central',
    domain: 'padariacentral.example',
    tags: ['b2b'],
    custom_fields: {},
    created_at: at(now),
    updated_at: at(now),
  };
}

function deal(now: Date): Data {
  return {
    id: 'dl_5PzR8mKq1WxN3vT7bLcYdE',
    title: 'Annual plan – Padaria Central',
    description: null,
    value: 4800,
    currency: 'BRL',
    status: 'open',
    funnel: ref('fn_2LqW9xTz4RkB7nVm1PcHsD', 'Sales'),
    stage: ref('st_6YtR3kLp8WqN2xZm5VbCdF', 'Proposal'),
    contacts: [ref('ct_3fK9wLq2XbN8vR1mT6yHcE', 'Maria Oliveira')],
    company: ref('co_8HnQ2vLx5KdP1wRz7TbYcM', 'Padaria Central'),
    assigned_to: SELLER,
    expected_close_date: at(new Date(now.getTime() + 14 * 86_400_000)),
    probability: 60,
    lost_reason: null,
    closed_at: null,
    tags: [],
    custom_fields: {},
    notes_count: 0,
    created_at: at(now),
    updated_at: at(now),
  };
}

function task(now: Date): Data {
  return {
    id: 'tk_9WmQ4zLx2RkT8nVb1PcYsH',
    title: 'Call Maria about the proposal',
    description: null,
    type: 'call',
    priority: 'high',
    status: 'open',
    due_at: at(new Date(now.getTime() + 86_400_000)),
    completed_at: null,
    assigned_to: SELLER,
    contact: ref('ct_3fK9wLq2XbN8vR1mT6yHcE', 'Maria Oliveira'),
    deal: { id: 'dl_5PzR8mKq1WxN3vT7bLcYdE', title: 'Annual plan – Padaria Central' },
    company: null,
    created_at: at(now),
    updated_at: at(now),
  };
}

function conversation(now: Date): Data {
  return {
    id: 'cv_4RkT8nVb1PcYsH9WmQ4zLx',
    contact: ref('ct_3fK9wLq2XbN8vR1mT6yHcE', 'Maria Oliveira'),
    channel: 'chatapp',
    chatapp_instance: { id: 'ci_1PcYsH9WmQ4zLx4RkT8nVb', name: 'Sales number', channel: 'official' },
    status: 'open',
    assigned_to: SELLER,
    ai_agent: null,
    unread_count: 1,
    last_message_at: at(now),
    last_message_preview: 'Hi! Is the annual plan still 10% off?',
    window_expires_at: at(new Date(now.getTime() + 86_400_000)),
    closed_at: null,
    created_at: at(now),
    updated_at: at(now),
  };
}

function message(now: Date, direction: 'inbound' | 'outbound'): Data {
  return {
    id: 'msg_7nVb1PcYsH9WmQ4zLx4RkT',
    conversation_id: 'cv_4RkT8nVb1PcYsH9WmQ4zLx',
    contact_id: 'ct_3fK9wLq2XbN8vR1mT6yHcE',
    channel: 'chatapp',
    direction,
    type: 'text',
    content: direction === 'inbound' ? 'Hi! Is the annual plan still 10% off?' : 'Yes, until Friday. Shall I send the proposal?',
    media: null,
    template: null,
    status: direction === 'inbound' ? 'received' : 'sent',
    sender:
      direction === 'inbound'
        ? { type: 'contact', id: 'ct_3fK9wLq2XbN8vR1mT6yHcE', name: 'Maria Oliveira' }
        : { type: 'api', id: null, name: null },
    external_id: 'wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNFQjBDMEQ3',
    error: null,
    edited_at: null,
    created_at: at(now),
  };
}

function note(now: Date): Data {
  return {
    id: 'nt_2xZm5VbCdF6YtR3kLp8WqN',
    content: 'Asked for a discount on the annual plan.',
    author: SELLER,
    created_at: at(now),
    updated_at: at(now),
  };
}

const generic = (prefix: string, now: Date): Data => ({ object: { id: `${prefix}_Qw3Er5Ty7Ui9Op1As2Df4G`, created_at: at(now) } });

/** `data` of an example event of `type`. */
export function exampleEventData(type: string, now: Date): Data {
  const family = type.split('.')[0] ?? '';
  const previous = { updated_at: at(new Date(now.getTime() - 3_600_000)) };
  switch (type) {
    case 'contact.tag.added':
    case 'contact.tag.removed':
      return { contact: ref('ct_3fK9wLq2XbN8vR1mT6yHcE', 'Maria Oliveira'), tag: 'vip' };
    case 'contact.note.added':
      return { note: note(now), contact_id: 'ct_3fK9wLq2XbN8vR1mT6yHcE' };
    case 'deal.note.added':
      return { note: note(now), deal_id: 'dl_5PzR8mKq1WxN3vT7bLcYdE' };
    case 'contact.updated':
      return { object: contact(now), previous: { ...previous, tags: ['lead'] } };
    case 'company.updated':
      return { object: company(now), previous: { ...previous, name: 'Padaria Central Ltda' } };
    case 'deal.updated':
      return { object: deal(now), previous: { ...previous, value: 4200 } };
    case 'deal.assigned':
      return { object: deal(now), previous: { assigned_to: null } };
    case 'deal.stage.changed':
      return { object: deal(now), previous: { stage: ref('st_1QaZ2wSx3EdC4rFv5TgBnH', 'Qualified') } };
    case 'deal.pipeline.transferred':
      return {
        object: deal(now),
        previous: { funnel: ref('fn_9OlP8iKu7JyH6gTf5RdEwS', 'Inbound'), stage: ref('st_1QaZ2wSx3EdC4rFv5TgBnH', 'Qualified') },
      };
    case 'conversation.assigned':
    case 'conversation.unassigned':
      return { object: conversation(now), previous: { assigned_to: type === 'conversation.assigned' ? null : SELLER } };
    case 'message.received':
    case 'message.reaction.added':
      return { object: message(now, 'inbound') };
    case 'message.edited':
      return { object: { ...message(now, 'inbound'), edited_at: at(now) }, previous: { content: 'Hi! Is the annual plan 10% off?' } };
    default:
      break;
  }
  if (type.endsWith('.deleted') && family !== 'message')
    return { object: { id: (objectOf(family, now).id as string | undefined) ?? 'unknown' } };
  return { object: objectOf(family, now) };
}

function objectOf(family: string, now: Date): Data {
  switch (family) {
    case 'contact':
      return contact(now);
    case 'company':
      return company(now);
    case 'deal':
      return deal(now);
    case 'task':
      return task(now);
    case 'conversation':
      return conversation(now);
    case 'message':
      return message(now, 'outbound');
    case 'channel':
      return { id: 'ci_1PcYsH9WmQ4zLx4RkT8nVb', name: 'Sales number', channel: 'qrcode', status: 'connected', changed_at: at(now) };
    case 'broadcast':
      return {
        id: 'bc_5TgBnH1QaZ2wSx3EdC4rFv',
        name: 'Black Friday',
        status: 'completed',
        total: 1200,
        sent: 1187,
        failed: 13,
        created_at: at(now),
      };
    case 'template':
      return { id: 'tpl_3EdC4rFv5TgBnH1QaZ2wSx', name: 'order_update', language: 'pt_BR', status: 'approved', updated_at: at(now) };
    case 'agent':
      return {
        id: 'run_8iKu7JyH6gTf5RdEwS9OlP',
        agent: ref('ag_4rFv5TgBnH1QaZ2wSx3EdC', 'Sales assistant'),
        conversation_id: 'cv_4RkT8nVb1PcYsH9WmQ4zLx',
        status: 'completed',
        created_at: at(now),
      };
    default:
      return generic('evt', now);
  }
}
