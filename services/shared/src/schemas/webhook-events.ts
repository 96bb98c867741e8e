/**
 * The 47 event kinds a webhook can subscribe to (catalogue §6, #82). `api_write` marks the 21 kinds that API writes
 * emit; the other 26 are emitted only by the platform (channels, providers, schedulers, agents). Shared by the
 * gateway (request validation) and the webhook service (the #82 list, subscription checks, test payloads).
 */
export interface EventKind {
  type: string;
  description: string;
  api_write: boolean;
}

const api = (type: string, description: string): EventKind => ({ type, description, api_write: true });
const platform = (type: string, description: string): EventKind => ({ type, description, api_write: false });

export const EVENT_KINDS: readonly EventKind[] = Object.freeze([
  api('contact.created', 'A contact was created (POST /v1/contacts).'),
  api('contact.updated', 'A contact was updated (PATCH /v1/contacts/{id}); data.previous holds the old values of the changed fields.'),
  api('contact.deleted', 'A contact was deleted (DELETE /v1/contacts/{id}).'),
  api('contact.tag.added', 'A tag was added to a contact.'),
  api('contact.tag.removed', 'A tag was removed from a contact.'),
  api('contact.note.added', 'A note was created on a contact.'),
  api('company.created', 'A company was created.'),
  api('company.updated', 'A company was updated; data.previous holds the old values of the changed fields.'),
  api('company.deleted', 'A company was deleted.'),
  api('deal.created', 'A deal was created.'),
  api('deal.updated', 'A deal was updated or its status changed (won, lost, reopened).'),
  api('deal.deleted', 'A deal was deleted.'),
  api('deal.assigned', 'The assigned_to of a deal changed.'),
  api('deal.stage.changed', 'A deal moved to another stage of its pipeline.'),
  api('deal.pipeline.transferred', 'A deal moved to another pipeline.'),
  api('deal.note.added', 'A note was created on a deal.'),
  api('task.created', 'A task was created.'),
  api('task.completed', 'A task was completed.'),
  api('conversation.assigned', 'A conversation was assigned to a member.'),
  api('conversation.closed', 'A conversation was closed.'),
  api('message.sent', 'A message left: sent through the API, a broadcast, an AI agent or typed on the phone of a QR-code number.'),
  platform('message.received', 'A message arrived from a contact.'),
  platform('message.edited', 'A message was edited.'),
  platform('message.deleted', 'A message was deleted for everyone.'),
  platform('message.delivered', 'The channel reported a sent message as delivered.'),
  platform('message.read', 'The channel reported a sent message as read.'),
  platform('message.failed', 'The channel refused or failed to deliver a sent message (e.g. provider error 131042).'),
  platform('message.reaction.added', 'A contact reacted to a message.'),
  platform('channel.connected', 'A number or page came online.'),
  platform('channel.disconnected', 'A number or page went offline; no message enters or leaves until it reconnects.'),
  platform('channel.qr.updated', 'A QR-code number needs to be paired again; a new QR code is available.'),
  platform('conversation.created', 'A conversation was opened by a first message.'),
  platform('conversation.reopened', 'A closed conversation reopened because a message was received or sent.'),
  platform('conversation.unassigned', 'A conversation lost its assignee (member removed or deactivated).'),
  platform('conversation.window.expired', 'The 24-hour free-text window of an official number closed for a conversation.'),
  platform('contact.merged', 'Two contacts were merged into one.'),
  platform('contact.opted_out', 'A contact asked to receive no more messages.'),
  platform('task.due', 'A task reached its due time.'),
  platform('task.overdue', 'An open task passed its due time without being completed.'),
  platform('broadcast.started', 'A broadcast started sending.'),
  platform('broadcast.completed', 'A broadcast finished (completed or completed_with_errors).'),
  platform('broadcast.failed', 'A broadcast failed: every send failed, or the launch checks failed at the scheduled time.'),
  platform('template.approved', 'The cloud provider approved an official template.'),
  platform('template.rejected', 'The cloud provider rejected an official template.'),
  platform('agent.run.completed', 'An AI-agent run finished.'),
  platform('agent.run.failed', 'An AI-agent run failed.'),
  platform('agent.handoff.requested', 'An AI agent handed a conversation over to a human.'),
]);

export const EVENT_TYPE_NAMES = EVENT_KINDS.map((kind) => kind.type) as [string, ...string[]];
