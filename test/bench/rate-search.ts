/** A measured rate and whether the system kept up with it. */
export interface RateOutcome {
  rate_per_s: number;
  kept_up: boolean;
}

/** What the measured rates say about the sustainable one: it lies in [kept, missed). */
export interface RateBracket {
  /** The highest rate that kept up; 0 when none did. */
  kept: number;
  /** The lowest rate above `kept` that did not; null when every rate above `kept` kept up. */
  missed: number | null;
}

export function bracketOf(outcomes: readonly RateOutcome[]): RateBracket {
  const kept = Math.max(0, ...outcomes.filter((outcome) => outcome.kept_up).map((outcome) => outcome.rate_per_s));
  const above = outcomes.filter((outcome) => !outcome.kept_up && outcome.rate_per_s > kept).map((outcome) => outcome.rate_per_s);
  return { kept, missed: above.length ? Math.min(...above) : null };
}

/** Above a bracket with no upper end, the next wave tries this much more than the highest rate that kept up. */
const STEP_UP = 1.2;

/**
 * The next rate to measure when searching for the sustainable rate: the middle of the bracket, in whole messages
 * per second, or null once the bracket is no wider than `resolution`. While every rate measured kept up, a fifth
 * above the highest, so that the search finds a rate that does not and the sustainable one is bracketed rather than
 * only bounded below. A wave is a sample: a rate that kept up above one that did not makes the bracket start at the
 * higher one, and the bisection goes on above it.
 */
export function nextRateToMeasure(outcomes: readonly RateOutcome[], resolution: number): number | null {
  const { kept, missed } = bracketOf(outcomes);
  if (missed === null) return kept > 0 ? Math.max(kept + resolution, Math.round(kept * STEP_UP)) : null;
  if (missed - kept <= resolution) return null;
  const middle = Math.round((kept + missed) / 2);
  return middle > kept && middle < missed ? middle : null;
}
