import type { Conversation, Message } from '@crm/proto/gen/messaging/v1/messaging';
import { nullIfNotFound } from '@crm/shared';
import type { AgentsDeps } from '../domain/deps';
import { boundedHistory, type ChatTurn } from '../models';
import type { RunRecord } from '../repository/run.repository';

/** A message as a model turn: the contact speaks as `user`, the business (people, agents, broadcasts) as `assistant`. */
function turnOf(message: Message): ChatTurn | null {
  const text = message.content?.trim() || (message.type !== 'text' ? `[${message.type}]` : '');
  if (!text) return null;
  return { role: message.direction === 'inbound' ? 'user' : 'assistant', content: text };
}

/**
 * The conversation and its latest messages as model turns, oldest first, in one call to messaging (its
 * GetConversationHistory, scoped by organization and conversation): at most `historyMessages` messages and
 * `historyChars` characters. Null when the conversation is gone (a contact merge folded it).
 */
export async function conversationHistory(
  deps: AgentsDeps,
  run: RunRecord,
): Promise<{ conversation: Conversation; history: ChatTurn[] } | null> {
  const read = await nullIfNotFound(
    deps.messaging.getConversationHistory({
      org_id: run.org_id,
      conversation_id: run.conversation_id,
      limit: deps.settings.historyMessages,
    }),
  );
  if (!read) return null;
  if (!read.conversation) throw new Error('GetConversationHistory answered without the conversation');
  const turns = read.messages
    .map(turnOf)
    .filter((turn): turn is ChatTurn => turn !== null)
    .reverse();
  return {
    conversation: read.conversation,
    history: boundedHistory(turns, { maxTurns: deps.settings.historyMessages, maxChars: deps.settings.historyChars }),
  };
}

/** What the contact wrote since the business last spoke: the text handoff keywords are looked for in. */
export function unansweredText(history: ChatTurn[]): string {
  const lastAnswer = history.map((turn) => turn.role).lastIndexOf('assistant');
  return history
    .slice(lastAnswer + 1)
    .filter((turn) => turn.role === 'user')
    .map((turn) => turn.content)
    .join('\n');
}

/** A short note for the person who takes over: the contact's latest words. */
export function summaryOf(history: ChatTurn[]): string {
  const text = unansweredText(history) || history.filter((turn) => turn.role === 'user').pop()?.content || '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `The contact wrote: "${flat.slice(0, 197)}…"` : `The contact wrote: "${flat}"`;
}
