import type { ChatTurn } from './model-provider';

export interface HistoryBounds {
  maxTurns: number;
  /** Sum of the turns' content lengths. */
  maxChars: number;
}

export const DEFAULT_HISTORY_BOUNDS: HistoryBounds = Object.freeze({ maxTurns: 20, maxChars: 8000 });

/**
 * The most recent turns within both bounds, oldest first: a long conversation costs a bounded prompt. The kept turns
 * are contiguous (an older turn is never kept once a newer one was dropped), and the last turn — the message being
 * answered — is always kept, cut to `maxChars` when it alone is longer.
 */
export function boundedHistory(turns: readonly ChatTurn[], bounds: HistoryBounds = DEFAULT_HISTORY_BOUNDS): ChatTurn[] {
  if (!Number.isInteger(bounds.maxTurns) || bounds.maxTurns < 1 || !Number.isInteger(bounds.maxChars) || bounds.maxChars < 1) {
    throw new RangeError('History bounds must be positive integers.');
  }
  const kept: ChatTurn[] = [];
  let chars = 0;
  for (let i = turns.length - 1; i >= 0 && kept.length < bounds.maxTurns; i -= 1) {
    const turn = turns[i];
    if (turn === undefined) break;
    if (chars + turn.content.length <= bounds.maxChars) {
      kept.push({ role: turn.role, content: turn.content });
      chars += turn.content.length;
      continue;
    }
    // A lone high surrogate left by the cut would be an invalid character in the JSON sent to the model.
    if (kept.length === 0) kept.push({ role: turn.role, content: turn.content.slice(0, bounds.maxChars).replace(/[\uD800-\uDBFF]$/, '') });
    break;
  }
  return kept.reverse();
}
