import {
  AppError,
  invalidReference,
  newEvent,
  notFound,
  type Order,
  type PageRequest,
  type PlannedChange,
  writeRevision,
} from '@crm/shared';
import { assignConversationBody, parseOrThrow } from '@crm/shared/schemas';
import type { ConversationRecord, ConversationSort } from '../repository/conversation.repository';
import type { MessagingDeps } from './deps';
import { viewConversation, viewMessage, type ConversationView } from './views';

/** The orders of GET /v1/conversations. */
export const CONVERSATION_SORTS = ['created_at', 'updated_at', 'last_message_at'] as const satisfies readonly ConversationSort[];

export async function listConversations(
  deps: MessagingDeps,
  orgId: string,
  query: PageRequest & {
    sort: ConversationSort;
    order: Order;
    updated_after?: string | null;
    status?: string | null;
    assigned_to?: string | null;
    contact_id?: string | null;
    channel?: string | null;
  },
) {
  const [page, total] = await Promise.all([deps.conversations.list(orgId, query), deps.conversations.countAll(orgId)]);
  return { items: page.items.map(viewConversation), hasMore: page.hasMore, next: page.next, total };
}

export async function getConversation(deps: MessagingDeps, orgId: string, id: string): Promise<ConversationView> {
  return viewConversation(await requireConversation(deps, orgId, id));
}

/** #50: meta.total counts the conversation's messages (catalogue §1: a sub-collection counts the parent's records). */
export async function listMessages(
  deps: MessagingDeps,
  orgId: string,
  conversationId: string,
  query: PageRequest & { order: Order; created_after?: string | null },
) {
  await requireConversation(deps, orgId, conversationId);
  const [page, total] = await Promise.all([
    deps.messages.list(orgId, conversationId, query),
    deps.messages.countInConversation(orgId, conversationId),
  ]);
  return { items: page.items.map(viewMessage), hasMore: page.hasMore, next: page.next, total };
}

/**
 * The conversation and its latest `limit` messages, newest first, read at once and without a total: an AI agent's
 * run reads both before it answers (one call, one conversation read, no count).
 */
export async function conversationHistory(deps: MessagingDeps, orgId: string, id: string, limit: number) {
  const [record, page] = await Promise.all([
    requireConversation(deps, orgId, id),
    deps.messages.list(orgId, id, { order: 'desc', limit, after: undefined }),
  ]);
  return { conversation: viewConversation(record), messages: page.items.map(viewMessage) };
}

export async function getMessage(deps: MessagingDeps, orgId: string, id: string) {
  const record = await deps.messages.getById(orgId, id);
  if (!record) throw notFound('message');
  return viewMessage(record);
}

/**
 * #51: assigns to an active member of the organization, or unassigns; the same assignee changes nothing. Every
 * change raises conversation.assigned (catalogue #51: also on unassign, with object.assigned_to null); an unassign
 * also raises conversation.unassigned, the kind that names it.
 */
export async function assignConversation(deps: MessagingDeps, orgId: string, id: string, rawBody: unknown): Promise<ConversationView> {
  const body = parseOrThrow(assignConversationBody, rawBody);
  const member = body.assigned_to ? await activeMember(deps, orgId, body.assigned_to) : null;
  return writeConversation(deps, orgId, id, (current) => {
    if ((current.assigned_to?.id ?? null) === (member?.id ?? null)) return null;
    const at = deps.now();
    return {
      // A person taking the conversation ends an AI agent's part in it (handoff).
      set: member ? { assigned_to: member, ai_agent: null, updated_at: at } : { assigned_to: member, updated_at: at },
      events: (view) => {
        const change = { object: view, previous: { assigned_to: current.assigned_to } };
        const assigned = newEvent(orgId, 'conversation.assigned', change, at);
        return member ? [assigned] : [assigned, newEvent(orgId, 'conversation.unassigned', change, at)];
      },
    };
  });
}

/** #52: open → closed; a closed conversation answers INVALID_STATUS. */
export async function closeConversation(deps: MessagingDeps, orgId: string, id: string): Promise<ConversationView> {
  return writeConversation(deps, orgId, id, (current) => {
    if (current.status === 'closed')
      throw new AppError('INVALID_STATUS', 'The conversation is already closed.', { status: current.status });
    const at = deps.now();
    return {
      set: { status: 'closed', closed_at: at, updated_at: at },
      events: (view) => [newEvent(orgId, 'conversation.closed', { object: view }, at)],
    };
  });
}

/** Read, plan, write conditionally on the revision read (the storage kit's writeRevision). A null plan changes nothing. */
function writeConversation(
  deps: MessagingDeps,
  orgId: string,
  id: string,
  plan: (current: ConversationRecord) => PlannedChange<ConversationRecord, ConversationView> | null,
): Promise<ConversationView> {
  return writeRevision({
    read: () => requireConversation(deps, orgId, id),
    plan,
    view: viewConversation,
    write: (current, set, events) => deps.conversations.updateAtRevision(orgId, id, current.rev, set, events),
  });
}

async function requireConversation(deps: MessagingDeps, orgId: string, id: string) {
  const record = await deps.conversations.getById(orgId, id);
  if (!record) throw notFound('conversation');
  return record;
}

async function activeMember(deps: MessagingDeps, orgId: string, memberId: string): Promise<{ id: string; name: string }> {
  let after: { value: unknown; id: string } | undefined;
  for (let page = 0; page < 20; page++) {
    const response = await deps.crm.accounts.listMembers({ org_id: orgId, page: { limit: 100, after } });
    const member = response.items.find((candidate) => candidate.id === memberId);
    if (member) {
      if (!member.is_active) break;
      return { id: member.id, name: member.name };
    }
    if (!response.page?.has_more || !response.page.next) break;
    after = { value: response.page.next.value, id: response.page.next.id };
  }
  throw invalidReference('assigned_to', memberId);
}
