import { AsyncLocalStorage } from 'node:async_hooks';
import { outsideRequestId } from './request-id';

/**
 * The deadline of the request being served, in ms since the epoch: the gateway sets one per HTTP request
 * (REQUEST_TIMEOUT_MS), a service takes the incoming call's. Every gRPC call made while serving it ends by then
 * (callDeadline), so no hop waits for an answer its caller has stopped waiting for. Held in AsyncLocalStorage so
 * that no route or handler has to pass it along.
 */
interface Budget {
  deadline: number | undefined;
}

const budgets = new AsyncLocalStorage<Budget>();

/**
 * What a call keeps of its caller's deadline: the caller must still have time to turn the callee's failure
 * into its own answer before its own deadline passes.
 */
export const DEADLINE_MARGIN_MS = 100;

/**
 * Runs `work` under `deadline` (ms since the epoch; undefined or Infinity: none). Once `work` settles the
 * deadline is lifted: background work it started (a timer, a sender loop) outlives the request and must not
 * inherit its spent budget, so it falls back to the clients' own defaults.
 */
export async function withDeadline<T>(deadline: number | undefined, work: () => Promise<T>): Promise<T> {
  if (deadline === undefined || !Number.isFinite(deadline)) return work();
  const budget: Budget = { deadline };
  try {
    return await budgets.run(budget, work);
  } finally {
    budget.deadline = undefined;
  }
}

/**
 * Runs `work` outside any request's deadline: for a worker loop that a request only wakes (a launch waking the
 * broadcast sender), whose calls must not be cut by the budget of the request that happened to wake it, nor its
 * events attributed to that request (request-id.ts).
 */
export const outsideRequest = <T>(work: () => T): T => budgets.exit(() => outsideRequestId(work));

/** The deadline of the request being served, if any. */
export const currentDeadline = (): number | undefined => budgets.getStore()?.deadline;

/** The deadline of one call: `defaultMs` from now, or earlier when the request being served ends sooner. */
export function callDeadline(defaultMs: number, now = Date.now()): Date {
  const own = now + defaultMs;
  const inherited = currentDeadline();
  return new Date(inherited === undefined ? own : Math.min(own, inherited - DEADLINE_MARGIN_MS));
}

/** A grpc-js deadline (Date, ms since the epoch, Infinity when none) as ms since the epoch, or undefined. */
export function deadlineMs(deadline: Date | number): number | undefined {
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(ms) ? ms : undefined;
}
