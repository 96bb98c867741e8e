import { boundedHistory } from './bounded-history';
import { firstMatch, parseInstructions, type LocalRules } from './local-instructions';
import { cancelledBy, ModelError } from './model-error';
import type { ChatTurn, ModelProvider, ModelReply, ModelRequest } from './model-provider';
import { estimateUsage } from './usage-estimate';

export const LOCAL_MODEL = 'local-rules-v1';
export const GENERIC_ANSWER = "Thanks for your message! We'll get back to you shortly.";
const SUMMARY_MAX_CHARS = 200;

/**
 * The default provider: answers from the rules written in the agent's instructions (syntax in local-instructions.ts),
 * without network. Deterministic — the same instructions, history and contact name give the same reply — so
 * end-to-end tests and the demo can assert on what the agent says. Order: simulated failure, handoff keywords, the
 * first matching `When` rule, the greeting (when nobody has answered the contact yet), the fallback, a generic answer.
 */
export class LocalProvider implements ModelProvider {
  readonly name = 'local';

  complete(input: ModelRequest): Promise<ModelReply> {
    if (input.signal?.aborted) return Promise.reject(cancelledBy(input.signal));
    const request = { ...input, history: boundedHistory(input.history) };
    const rules = parseInstructions(request.instructions);
    const text = lastUserText(request.history);
    const failure = rules.failures.find((rule) => rule.keywords === null || firstMatch(rule.keywords, text) !== null);
    if (failure) return Promise.reject(new ModelError('model_unavailable', failure.message));

    const handoffKeyword = firstMatch(rules.handoffKeywords, text);
    if (handoffKeyword) {
      const content = render(rules.handoffReply, request.contactName);
      const handoff = { reason: `The contact mentioned "${handoffKeyword.phrase}".`, summary: summaryOf(request.history, text) };
      return Promise.resolve(reply(request, content, handoff));
    }
    return Promise.resolve(reply(request, render(answerFor(rules, request.history, text), request.contactName), null));
  }
}

function answerFor(rules: LocalRules, history: readonly ChatTurn[], text: string): string {
  const rule = rules.answers.find((candidate) => firstMatch(candidate.keywords, text) !== null);
  if (rule) return rule.answer;
  const answeredBefore = history.some((turn) => turn.role === 'assistant');
  if (rules.greeting !== null && !answeredBefore) return rules.greeting;
  return rules.fallback ?? GENERIC_ANSWER;
}

function reply(request: ModelRequest, content: string, handoff: ModelReply['handoff']): ModelReply {
  return { content, model: LOCAL_MODEL, usage: estimateUsage(request.instructions, request.history, content), handoff };
}

function lastUserText(history: readonly ChatTurn[]): string {
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const turn = history[i];
    if (turn?.role === 'user') return turn.content;
  }
  return '';
}

function summaryOf(history: readonly ChatTurn[], text: string): string {
  const userTurns = history.filter((turn) => turn.role === 'user').length;
  const quoted = text.length > SUMMARY_MAX_CHARS ? `${text.slice(0, SUMMARY_MAX_CHARS - 1)}…` : text;
  return `Last message from the contact: "${quoted}" (${userTurns} message${userTurns === 1 ? '' : 's'} from the contact in the history).`;
}

/**
 * `{first_name}` and `{name}` become the contact's name. Unknown name: the placeholder and the space before it go,
 * so "Hi {first_name}!" reads "Hi!" rather than "Hi !".
 */
export function render(template: string, contactName: string | null | undefined): string {
  const name = (contactName ?? '').trim().replace(/\s+/g, ' ');
  const firstName = name.split(' ')[0] ?? '';
  const filled = template.replace(/(\s*)\{(first_name|name)\}/gi, (_whole, space: string, key: string) => {
    const value = key.toLowerCase() === 'name' ? name : firstName;
    return value.length > 0 ? space + value : '';
  });
  return filled.replace(/^[\s,;:]+/, '').trim();
}
