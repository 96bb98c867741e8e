import { type AppError, newId } from '@crm/shared/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isProbe } from '../http/probes';
import type { Principal } from '../http/route';
import type { InflightRequests } from './inflight-limit';
import { writeRefusal } from './prerendered-refusal';
import { turnSpreader } from './turn-spreader';
import type { TenantBulkheads } from './tenant-bulkhead';

export interface EarlyAdmissionDeps {
  inflight: InflightRequests;
  bulkheads: TenantBulkheads;
  /** Whom an Authorization header's key belonged to when last verified here; no lookup (auth.ts `peek`). */
  principalOf: (header: string | undefined) => Principal | undefined;
  /** Each request's budget from its arrival (the bulkhead refuses one that could not start in time). */
  requestTimeoutMs: number;
  /** False once the shutdown has begun: Fastify's hook answers every request then (graceful-shutdown.ts). */
  serving: () => boolean;
  /** The headers every API answer to a request from this origin carries besides its own (CORS, caching). */
  headersFor: (origin: string | undefined) => Record<string, string>;
  /** Told of each refusal once sent: metrics, and the pause of a connection that keeps being refused. */
  refused: (request: IncomingMessage, response: ServerResponse, error: AppError, startedAt: number) => void;
}

/**
 * Refusals answered per turn of the event loop. A flood's requests arrive together and are read in one turn; answering
 * them there (~0.1–0.2 ms each on the bench machine) would hold the turn, and every other request's I/O, for all of
 * them: they are answered a few at a time over the next turns instead (turn-spreader.ts).
 */
const REFUSALS_PER_TURN = 16;

/** Answers `request` with a refusal and returns true, or counts it as open and returns false (Fastify serves it). */
export type EarlyAdmission = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * The first admission decision about every request, taken by the HTTP server before Fastify sees the request — before
 * its route is looked up, its hooks run, its body read, its key looked up or its query validated: a flood from one
 * organization is refused for the cost of parsing its headers. (In a Fastify hook, the framework's own work per
 * request made a thousand refusals arriving at once hold every other answer of the process for ~0.5 s on this
 * project's 2-core bench machine: docs/capacity.md.)
 * 1. The request counts against its organization's open requests (the organization its key had when last verified
 *    here, from the authentication cache; a key never verified here counts as unattributed until the pipeline has
 *    verified it: admission.ts). One over the organization's cap is refused 429 RATE_LIMITED (`policy: "inflight"`);
 *    one over the process's, 503.
 * 2. When the organization's bulkhead would refuse the request now (its places taken and its queue full, or its
 *    expected wait past the deadline, counting its requests still in the pipeline as ahead of it), it is refused
 *    here with the same 429 (`policy: "concurrency"`).
 * Refusals are answered from pre-rendered JSON (prerendered-refusal.ts), a few per turn of the event loop (below).
 * Probes are never refused.
 */
export function createEarlyAdmission(deps: EarlyAdmissionDeps): EarlyAdmission {
  const later = turnSpreader(REFUSALS_PER_TURN);
  const refuse = (request: IncomingMessage, response: ServerResponse, error: AppError, startedAt: number): true => {
    later(() => {
      if (response.destroyed) return;
      writeRefusal(response, error, newId('request'), deps.headersFor(request.headers.origin));
      deps.refused(request, response, error, startedAt);
    });
    return true;
  };
  return (request, response) => {
    // Probes must answer however busy the process is: a refused liveness probe would get a busy replica killed.
    if (!deps.serving() || isProbe(request.url ?? '/')) return false;
    const startedAt = performance.now();
    const principal = deps.principalOf(request.headers.authorization);
    const refused = deps.inflight.enter(request, principal?.orgId);
    if (refused) return refuse(request, response, refused, startedAt);
    // 'close' follows every response: sent, failed, or the client gone before the answer.
    response.once('close', () => deps.inflight.leave(request));
    const full =
      principal &&
      deps.bulkheads.refusal(principal.orgId, principal.plan, Date.now() + deps.requestTimeoutMs, deps.inflight.countOf(principal.orgId));
    return full ? refuse(request, response, full, startedAt) : false;
  };
}
