import type { ChatTurn, ModelReply } from './model-provider';

/** About 4 characters per token for English text: close enough for usage records, and never zero. */
const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / CHARS_PER_TOKEN));
}

/** Estimated usage of one call: the prompt is the instructions plus every turn sent, the completion is the answer. */
export function estimateUsage(instructions: string, history: readonly ChatTurn[], answer: string): ModelReply['usage'] {
  const prompt_tokens = estimateTokens(instructions + history.map((turn) => turn.content).join('\n'));
  const completion_tokens = estimateTokens(answer);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}
