/**
 * The instruction syntax of the local provider: one directive per line of `aiConfig.instructions`, prefixes matched
 * case-insensitively, an optional leading "-" or "*" bullet allowed. Every other line is persona text that the
 * rules ignore (the OpenAI-compatible provider reads the same text as its system prompt).
 *
 *   When [the customer|contact|client|user|someone|they] [mentions|says|writes|asks about|asks for|talks about] <keywords>: <answer>
 *   Greeting: <answer>
 *   Fallback: <answer>
 *   Handoff when [the customer ... mentions] <keywords>
 *   Handoff reply: <answer>
 *   Simulate failure: <message>
 *   Simulate failure when <keywords>: <message>
 *
 * <keywords> is a comma-separated list of words or phrases; the first colon ends it, so an answer may contain
 * colons. A directive with no keyword or an empty answer is ignored.
 */
export interface Keyword {
  /** As written, lower-cased: used in handoff reasons. */
  phrase: string;
  pattern: RegExp;
}

export interface AnswerRule {
  keywords: Keyword[];
  answer: string;
}

export interface FailureRule {
  /** Null: every call fails. */
  keywords: Keyword[] | null;
  message: string;
}

export interface LocalRules {
  answers: AnswerRule[];
  greeting: string | null;
  fallback: string | null;
  handoffKeywords: Keyword[];
  handoffReply: string;
  failures: FailureRule[];
}

// "the customer mentions", "they ask about", "someone says", … — filler a user may write or leave out.
const SUBJECT = String.raw`(?:(?:the\s+)?(?:customer|contact|client|user|someone|they)\s+)?`;
const VERB = String.raw`(?:(?:mentions?|mentioning|says?|writes?|asks?(?:\s+about|\s+for)?|asked\s+about|talks?\s+about)\s+)?`;
const FILLER = SUBJECT + VERB;
const WHEN = new RegExp(String.raw`^when\s+${FILLER}([^:]+):(.*)$`, 'i');
const HANDOFF_WHEN = new RegExp(String.raw`^handoff\s+when\s*:?\s*${FILLER}(.+)$`, 'i');
const FAILURE = /^simulate\s+failure(?:\s+when\s+([^:]+))?\s*:(.*)$/i;
const SIMPLE = /^(greeting|fallback|handoff\s+reply)\s*:(.*)$/i;
const BULLET = /^\s*(?:[-*]\s+)?/;

/** Whole words or phrases only ("price" does not match "priceless"); any run of spaces in a phrase matches. */
function keywordOf(raw: string): Keyword | null {
  const phrase = raw
    .trim()
    .replace(/^["'“‘]|["'”’]$/g, '')
    .trim()
    .toLowerCase();
  if (phrase.length === 0) return null;
  const body = phrase
    .split(/\s+/)
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join(String.raw`\s+`);
  return { phrase, pattern: new RegExp(String.raw`(?<![\p{L}\p{N}])${body}(?![\p{L}\p{N}])`, 'iu') };
}

export function keywordsOf(list: string): Keyword[] {
  return list.split(',').flatMap((raw) => keywordOf(raw) ?? []);
}

/** The first keyword found in the text, or null. */
export function firstMatch(keywords: readonly Keyword[], text: string): Keyword | null {
  return keywords.find((keyword) => keyword.pattern.test(text)) ?? null;
}

function applyLine(rules: LocalRules, line: string): void {
  let match = SIMPLE.exec(line);
  if (match) {
    const directive = (match[1] ?? '').toLowerCase().replace(/\s+/g, ' ');
    const text = (match[2] ?? '').trim();
    if (text.length === 0) return;
    if (directive === 'greeting') rules.greeting ??= text;
    else if (directive === 'fallback') rules.fallback ??= text;
    else if (rules.handoffReply.length === 0) rules.handoffReply = text;
    return;
  }
  if ((match = FAILURE.exec(line))) {
    const keywords = match[1] === undefined ? null : keywordsOf(match[1]);
    const message = (match[2] ?? '').trim() || 'Simulated model failure';
    if (keywords === null || keywords.length > 0) rules.failures.push({ keywords, message });
    return;
  }
  if ((match = HANDOFF_WHEN.exec(line))) {
    rules.handoffKeywords.push(...keywordsOf(match[1] ?? ''));
    return;
  }
  if ((match = WHEN.exec(line))) {
    const keywords = keywordsOf(match[1] ?? '');
    const answer = (match[2] ?? '').trim();
    if (keywords.length > 0 && answer.length > 0) rules.answers.push({ keywords, answer });
  }
}

/** Parses the instructions; never throws (an unreadable line is persona text). */
export function parseInstructions(instructions: string): LocalRules {
  const rules: LocalRules = { answers: [], greeting: null, fallback: null, handoffKeywords: [], handoffReply: '', failures: [] };
  for (const rawLine of instructions.split(/\r?\n/)) {
    const line = rawLine.replace(BULLET, '').trim();
    if (line.length > 0) applyLine(rules, line);
  }
  return rules;
}
