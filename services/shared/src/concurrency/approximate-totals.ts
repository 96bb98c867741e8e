import { TtlCache } from './ttl-cache';

/** How long a count stays in use: 5 s, and 5 s more per 1,000 records counted beyond the first 1,000… */
const FRESH_MS_PER_THOUSAND = 5_000;
/** …but never longer than this. */
const MAX_AGE_MS = 60_000;

/**
 * How long a count of `count` records is used for `meta.total` before it is counted again (spec §8: the total may be
 * approximate). A count costs the database time in proportion to what it counts — 140–290 ms for 10,000 contacts
 * on the local store, once per replica per refresh, in the middle of every other organization's queries — so a large
 * organization's total is refreshed less often: 5 s up to 1,000 records, 50 s at 10,000, a minute at most. Drawn
 * within ±10 % so that replicas that counted together do not count together again.
 */
export function totalFreshnessMs(count: number, random: () => number = Math.random): number {
  const fresh = Math.min(MAX_AGE_MS, FRESH_MS_PER_THOUSAND * Math.max(1, count / 1_000));
  return Math.round(fresh * (0.9 + 0.2 * random()));
}

/**
 * The `meta.total` of one organization's list, by key (the organization, with its filters if any): a list then costs
 * one page query, not a page query and a count. A process's own writes that change the count invalidate it at once.
 */
export const approximateTotals = (random?: () => number): TtlCache<number> =>
  new TtlCache<number>((count) => totalFreshnessMs(count, random));
