import { iso, isoOrNull } from '@crm/shared';
import type { EventDataInput } from '@crm/shared';
import type { ChatInstanceObject, ConversationObject, MessageObject, TemplateObject } from '@crm/shared/events';
import type { ChatInstanceRecord } from '../repository/chat-instance.repository';
import type { ConversationRecord } from '../repository/conversation.repository';
import type { MessageRecord } from '../repository/message.repository';
import type { TemplateRecord } from '../repository/template.repository';

/** The read shapes, as the event catalogue declares them: events carry exactly what the routes return. */
export type ConversationView = ConversationObject;
export type MessageView = MessageObject;
export type ChatInstanceView = ChatInstanceObject;
export type TemplateView = TemplateObject;

const PREVIEW_LENGTH = 120;

export const previewOf = (message: Pick<MessageRecord, 'content' | 'type' | 'template'>): string | null =>
  message.content
    ? message.content.slice(0, PREVIEW_LENGTH)
    : message.template
      ? `[template ${message.template.name}]`
      : message.type !== 'text'
        ? `[${message.type}]`
        : null;

export function viewConversation(record: ConversationRecord): ConversationView {
  // Chatapp conversations are on a qrcode or an official number (the only kinds of the chatapp channel).
  const kind = record.instance_kind;
  const chatappKind = record.channel === 'chatapp' && (kind === 'qrcode' || kind === 'official') ? kind : null;
  return {
    id: record.id,
    contact: { id: record.contact_id, name: record.contact_name },
    channel: record.channel,
    chatapp_instance: chatappKind ? { id: record.instance_id, name: record.instance_name, channel: chatappKind } : null,
    status: record.status,
    assigned_to: record.assigned_to,
    ai_agent: record.ai_agent ?? null,
    unread_count: record.unread_count,
    last_message_at: isoOrNull(record.last_message_at),
    last_message_preview: record.last_message_preview,
    window_expires_at: record.instance_kind === 'official' ? isoOrNull(record.window_expires_at) : null,
    closed_at: isoOrNull(record.closed_at),
    created_at: iso(record.created_at),
    updated_at: iso(record.updated_at),
  };
}

export function viewMessage(record: MessageRecord): MessageView {
  return {
    id: record.id,
    conversation_id: record.conversation_id,
    contact_id: record.contact_id,
    channel: record.channel,
    direction: record.direction,
    type: record.type,
    content: record.content,
    media: record.media,
    template: record.template,
    status: record.status,
    sender: record.sender,
    external_id: record.external_id,
    error: record.error,
    edited_at: isoOrNull(record.edited_at),
    created_at: iso(record.created_at),
  };
}

/**
 * The `data` of every event about a message: the message, and the broadcast or AI-agent run that sent it, so that
 * an integrator ties each status to its broadcast without reading the recipient list.
 */
export function messageEventData(record: MessageRecord): EventDataInput<'message.sent'> {
  return {
    object: viewMessage(record),
    ...(record.broadcast_id ? { broadcast_id: record.broadcast_id } : {}),
    ...(record.agent_run_id ? { agent_run_id: record.agent_run_id } : {}),
  };
}

export function viewChatInstance(record: ChatInstanceRecord): ChatInstanceView {
  return {
    id: record.id,
    name: record.name,
    channel: record.kind,
    phone_number: record.phone_number,
    status: record.status,
    is_default: record.is_default,
    warmup: { active: record.warmup.active, daily_limit: record.warmup.daily_limit },
    created_at: iso(record.created_at),
    updated_at: iso(record.updated_at),
  };
}

export function viewTemplate(record: TemplateRecord): TemplateView {
  return {
    id: record.id,
    instance_id: record.instance_id,
    name: record.name,
    language: record.language,
    category: record.category,
    status: record.status,
    components: record.components,
    variables: record.variables,
    updated_at: iso(record.updated_at),
  };
}
