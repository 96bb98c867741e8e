import type { ModelReply } from './model-provider';

/**
 * How a remote model asks for a person: the system prompt tells it to answer one line, `HANDOFF: <reason> | <summary>`.
 * Models are not always exact, so the parser also accepts the line among other text (that text is kept as the reply),
 * markdown bold around the marker, and a missing summary.
 */
export const HANDOFF_PROTOCOL = [
  'If a human colleague must take over (the contact asks for a person, is upset, or needs something you cannot do),',
  'answer with exactly one line and nothing else:',
  'HANDOFF: <the reason, a few words> | <a short summary of the conversation for the colleague>',
].join(' ');

const HANDOFF_LINE = /^\s*(?:\*\*|__)?handoff(?:\*\*|__)?\s*:(?:\*\*|__)?(.*)$/i;
const DEFAULT_REASON = 'The model asked for a person.';

export function systemPrompt(instructions: string, contactName: string | null | undefined): string {
  const name = contactName?.trim();
  return [instructions.trim(), name ? `The contact's name is ${name}.` : '', HANDOFF_PROTOCOL]
    .filter((part) => part.length > 0)
    .join('\n\n');
}

/** Splits a completion into the text for the contact and the handoff request, if any. */
export function parseCompletion(text: string): Pick<ModelReply, 'content' | 'handoff'> {
  const lines = text.split(/\r?\n/);
  const index = lines.findIndex((line) => HANDOFF_LINE.test(line));
  if (index < 0) return { content: text.trim(), handoff: null };
  const body = (HANDOFF_LINE.exec(lines[index] ?? '')?.[1] ?? '').trim();
  const separator = body.indexOf('|');
  const reason = (separator < 0 ? body : body.slice(0, separator)).trim();
  const summary = separator < 0 ? '' : body.slice(separator + 1).trim();
  const content = lines
    .filter((_line, i) => i !== index)
    .join('\n')
    .trim();
  return { content, handoff: { reason: reason || DEFAULT_REASON, summary } };
}
