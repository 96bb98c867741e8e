import type { IdKind } from '@crm/shared/core';

/** The record kind each response component describes: its `id` has that kind's prefix (catalogue §4.2). */
export const COMPONENT_KINDS: Record<string, IdKind> = {
  Contact: 'contact',
  ContactDetail: 'contact',
  Company: 'company',
  Deal: 'deal',
  Note: 'note',
  Funnel: 'funnel',
  Stage: 'stage',
  Task: 'task',
  Conversation: 'conversation',
  Message: 'message',
  ChatInstance: 'chatInstance',
  Template: 'template',
  Broadcast: 'broadcast',
  AiAgent: 'aiAgent',
  AiAgentRun: 'agentRun',
  Webhook: 'webhook',
  WebhookDelivery: 'delivery',
  WebhookDeliveryDetail: 'delivery',
  Member: 'member',
  CustomFieldDefinition: 'customField',
};
