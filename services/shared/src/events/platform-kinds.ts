import { z } from 'zod';
import * as data from './event-data';
import * as ex from './event-examples';
import {
  agentRunObject,
  broadcastObject,
  chatInstanceObject,
  contactObject,
  conversationObject,
  replayObject,
  id,
  taskObject,
  templateObject,
  timestamp,
} from './event-objects';
import { AGENT, BROADCAST, CHANNEL, CONTACT, CONVERSATION, kind, MESSAGE, platform, TASK, WEBHOOK } from './event-kind';

const at = (now: Date) => now.toISOString();

/** The 27 kinds only the platform emits (channels, providers, schedulers, agents, replays), in the order of the public list. */
export const PLATFORM_KINDS = {
  'message.received': kind({
    ...platform,
    ...MESSAGE,
    description: 'A message arrived from a contact.',
    fires: 'A provider callback brings a message from a contact (once per provider message id).',
    data: data.messageData,
    example: (now) => ({ object: ex.exampleMessage(now, 'inbound') }),
  }),
  'message.edited': kind({
    ...platform,
    ...MESSAGE,
    description: 'A message was edited; data.previous.content is the text before the edit.',
    fires: 'A provider callback reports that the contact edited a message.',
    data: data.messageEditData,
    example: (now) => ({
      object: { ...ex.exampleMessage(now, 'inbound'), edited_at: at(now) },
      previous: { content: 'Hi! Is the annual plan 10% off?' },
    }),
  }),
  'message.deleted': kind({
    ...platform,
    ...MESSAGE,
    description: 'A message was deleted for everyone; data.object is the message as it was (it is no longer readable through the API).',
    fires: "A provider callback reports a delete for everyone; the message then leaves GET /v1/messages/{id} and the conversation's list.",
    data: data.messageData,
    example: (now) => ({ object: ex.exampleMessage(now, 'inbound') }),
  }),
  'message.delivered': kind({
    ...platform,
    ...MESSAGE,
    description: 'The channel reported a sent message as delivered.',
    fires: 'A provider status callback: delivered to the phone.',
    data: data.messageData,
    example: (now) => ({ object: ex.exampleStatusMessage(now, 'delivered'), broadcast_id: ex.EXAMPLE_IDS.broadcast }),
  }),
  'message.read': kind({
    ...platform,
    ...MESSAGE,
    description: 'The channel reported a sent message as read.',
    fires: 'A provider status callback: read by the contact.',
    data: data.messageData,
    example: (now) => ({ object: ex.exampleStatusMessage(now, 'read'), agent_run_id: ex.EXAMPLE_IDS.agentRun }),
  }),
  'message.failed': kind({
    ...platform,
    ...MESSAGE,
    description: 'The channel refused or failed to deliver a sent message (e.g. provider error 131042); data.object.error says why.',
    fires:
      'A provider status callback reports a failed delivery after the send was accepted (e.g. 131042 when the official account has no payment method, or any refused delivery); data.object.error has the provider code.',
    data: data.messageData,
    example: (now) => ({ object: ex.exampleStatusMessage(now, 'failed') }),
  }),
  'message.reaction.added': kind({
    ...platform,
    ...MESSAGE,
    description: 'A contact reacted to a message; data.object is the message reacted to.',
    fires: 'A provider callback reports a reaction of the contact (an empty emoji: removed); once per provider reaction.',
    data: data.reactionData,
    example: (now) => ({ object: ex.exampleMessage(now, 'outbound'), reaction: { emoji: '👍', reacted_at: at(now) } }),
  }),
  'channel.connected': kind({
    ...platform,
    ...CHANNEL,
    description: 'A number or page came online.',
    fires: 'A provider callback reports the number or page online again.',
    data: data.recordData(chatInstanceObject),
    example: (now) => ({ object: ex.exampleChatInstance(now, 'connected') }),
  }),
  'channel.disconnected': kind({
    ...platform,
    ...CHANNEL,
    description: 'A number or page went offline; no message enters or leaves until it reconnects.',
    fires: 'A provider callback reports the number or page offline.',
    data: data.recordData(chatInstanceObject),
    example: (now) => ({ object: ex.exampleChatInstance(now, 'disconnected') }),
  }),
  'channel.qr.updated': kind({
    ...platform,
    ...CHANNEL,
    description: 'A QR-code number needs to be paired again; data.qr_code is the new code to scan on the phone.',
    fires: 'The QR-code bridge shows a new code to pair the phone (the number is connecting until it is scanned); once per code.',
    data: z.object({
      object: chatInstanceObject,
      qr_code: z.string().describe('the text the QR code encodes'),
      expires_at: timestamp.nullable(),
    }),
    example: (now) => ({
      object: ex.exampleChatInstance(now, 'connecting'),
      qr_code: '2@Wq9pL3xZ8vK1mN4bT7yR2cF5hJ0dS6gA,6dQk2zXw9LmB4cVnP0sHdA==',
      expires_at: new Date(now.getTime() + 60_000).toISOString(),
    }),
  }),
  'conversation.created': kind({
    ...platform,
    ...CONVERSATION,
    description: 'A conversation was opened by its first message (received or sent).',
    fires: 'The first message received or sent between a contact and a number or page opens its conversation.',
    data: data.recordData(conversationObject),
    example: (now) => ({ object: { ...ex.exampleConversation(now), created_at: at(now), assigned_to: null } }),
  }),
  'conversation.reopened': kind({
    ...platform,
    ...CONVERSATION,
    description: 'A closed conversation opened again because a message was received or sent.',
    fires: 'A message received or sent in a closed conversation.',
    data: data.recordData(conversationObject),
    example: (now) => ({ object: ex.exampleConversation(now) }),
  }),
  'conversation.unassigned': kind({
    ...platform,
    ...CONVERSATION,
    description: 'A conversation lost its assignee; data.previous.assigned_to is who had it.',
    fires: 'POST /v1/conversations/{id}/assign with assigned_to null, when it had an assignee.',
    data: data.changeData(conversationObject, data.assigneeChange),
    example: (now) => ({ object: { ...ex.exampleConversation(now), assigned_to: null }, previous: { assigned_to: ex.SELLER } }),
  }),
  'conversation.window.expired': kind({
    ...platform,
    ...CONVERSATION,
    description: 'The 24-hour free-text window of an official number closed for a conversation: only templates can be sent now.',
    fires:
      "An official number's 24-hour free-text window ends (MESSAGING_WINDOW_HOURS after the contact's last message) with no newer message; once per window end, whatever the number of replicas.",
    data: data.recordData(conversationObject),
    example: (now) => ({ object: { ...ex.exampleConversation(now), window_expires_at: at(now) } }),
  }),
  'contact.merged': kind({
    ...platform,
    ...CONTACT,
    description:
      'Contacts were merged into one: data.object is the contact that remains, data.merged_ids the contacts folded into it (now deleted).',
    fires: 'POST /v1/contacts/{id}/merge folds at least one contact in (a repeat that folds nothing raises nothing).',
    data: z.object({ object: contactObject, merged_ids: z.array(id('contact')).min(1) }),
    example: (now) => ({ object: ex.exampleContact(now), merged_ids: [ex.EXAMPLE_IDS.mergedContact] }),
  }),
  'contact.opted_out': kind({
    ...platform,
    ...CONTACT,
    producer: 'messaging',
    description: 'A contact asked to receive no more marketing messages (a STOP keyword, or through the API).',
    fires:
      'The contact writes STOP (or UNSUBSCRIBE, OPT OUT, STOP ALL) on any channel, or POST /v1/contacts/{id}/opt-out; only when it was not opted out already.',
    data: data.optOutData,
    example: (now) => ({
      contact: ex.MARIA,
      channel: 'chatapp' as const,
      source: 'keyword' as const,
      keyword: 'STOP',
      opted_out_at: at(now),
    }),
  }),
  'task.due': kind({
    ...platform,
    ...TASK,
    description: 'A task reached its due time.',
    fires: 'An open task reaches its due_at; once per due time (changing due_at arms it again).',
    data: data.recordData(taskObject),
    example: (now) => ({ object: ex.exampleTask(now) }),
  }),
  'task.overdue': kind({
    ...platform,
    ...TASK,
    description: 'An open task passed its due time without being completed.',
    fires: 'An open task is still open TASK_OVERDUE_AFTER_MS (default one hour) after its due_at; after task.due, once per due time.',
    data: data.recordData(taskObject),
    example: (now) => ({ object: { ...ex.exampleTask(now), due_at: new Date(now.getTime() - 86_400_000).toISOString() } }),
  }),
  'broadcast.started': kind({
    ...platform,
    ...BROADCAST,
    description: 'A broadcast started sending (launched now, or at its scheduled time).',
    fires:
      'POST /v1/broadcasts/{id}/launch, or the scheduled time of a scheduled broadcast (draft or scheduled to processing); once per broadcast.',
    data: data.recordData(broadcastObject),
    example: (now) => ({ object: ex.exampleBroadcast(now, 'sending') }),
  }),
  'broadcast.completed': kind({
    ...platform,
    ...BROADCAST,
    description: 'A broadcast finished: status completed, or completed_with_errors when some sends failed (data.object.stats).',
    fires:
      'The last send of a broadcast is done and not every send failed (completed or completed_with_errors); again if late delivery failures change that status.',
    data: data.recordData(broadcastObject),
    example: (now) => ({ object: ex.exampleBroadcast(now, 'completed_with_errors') }),
  }),
  'broadcast.failed': kind({
    ...platform,
    ...BROADCAST,
    description: 'A broadcast failed: every send failed, or its launch checks failed at the scheduled time (data.object.error).',
    fires:
      'Every send of a broadcast failed (refused, or delivery failed later), or a scheduled broadcast failed its launch checks at its time.',
    data: data.recordData(broadcastObject),
    example: (now) => ({ object: ex.exampleBroadcast(now, 'failed') }),
  }),
  'template.approved': kind({
    ...platform,
    ...CHANNEL,
    description: 'The cloud provider approved an official template: it can be sent now.',
    fires: "The cloud provider's review callback approves a template (status APPROVED).",
    data: data.recordData(templateObject),
    example: (now) => ({ object: ex.exampleTemplate(now, 'APPROVED') }),
  }),
  'template.rejected': kind({
    ...platform,
    ...CHANNEL,
    description: "The cloud provider rejected an official template; data.reason is the provider's reason, when it gave one.",
    fires: "The cloud provider's review callback rejects a template (status REJECTED).",
    data: data.recordData(templateObject).extend({ reason: z.string().nullable() }),
    example: (now) => ({ object: ex.exampleTemplate(now, 'REJECTED'), reason: 'INVALID_FORMAT' }),
  }),
  'agent.run.completed': kind({
    ...platform,
    ...AGENT,
    description: 'An AI-agent run finished: data.object.messages_sent are its replies.',
    fires: 'An AI-agent run finished: it replied (messages_sent) or handed off.',
    data: data.recordData(agentRunObject),
    example: (now) => ({ object: ex.exampleAgentRun(now, 'completed') }),
  }),
  'agent.run.failed': kind({
    ...platform,
    ...AGENT,
    description: 'An AI-agent run failed; data.object.error_message says why.',
    fires: 'An AI-agent run failed: the model failed, or its reply was refused (outside the window, disconnected number…).',
    data: data.recordData(agentRunObject),
    example: (now) => ({ object: ex.exampleAgentRun(now, 'failed') }),
  }),
  'agent.handoff.requested': kind({
    ...platform,
    ...AGENT,
    description: 'An AI agent handed a conversation over to a person; data.object.handoff says why.',
    fires:
      "An AI-agent run handed the conversation to a person (a handoff keyword, the model's request, or consecutive failures), beside its completed or failed event.",
    data: data.recordData(agentRunObject),
    example: (now) => ({ object: ex.exampleAgentRun(now, 'handoff') }),
  }),
  'webhook.replay.completed': kind({
    ...platform,
    ...WEBHOOK,
    description:
      'A replay (POST /v1/webhooks/{id}/replay) finished: every matched event was delivered or failed after its attempts (data.object counts them).',
    fires:
      'Every delivery a replay queued has its outcome (delivered, or failed after its attempts); once per replay, whatever the number of replicas. None when the subscription was deleted meanwhile (the replay is cancelled).',
    data: data.recordData(replayObject),
    example: (now) => ({ object: ex.exampleReplay(now) }),
  }),
} as const;
