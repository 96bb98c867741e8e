import type { FastifyInstance } from 'fastify';
import { isProbe } from '../http/probes';
import type { Principal } from '../http/route';
import type { InflightRequests } from './inflight-limit';
import { sendRefusal } from './prerendered-refusal';
import type { TenantBulkheads } from './tenant-bulkhead';

export interface EarlyAdmissionDeps {
  inflight: InflightRequests;
  bulkheads: TenantBulkheads;
  /** Whom an Authorization header's key belonged to when last verified here; no lookup (auth.ts `peek`). */
  principalOf: (header: string | undefined) => Principal | undefined;
  /** Each request's budget from its arrival (the bulkhead refuses one that could not start in time). */
  requestTimeoutMs: number;
}

/**
 * The first admission decision about every request, in the first hook, before its body is read, its key looked up
 * or its query validated: a flood from one organization is refused here for the cost of reading its headers.
 * 1. The request counts against its organization's open requests (the organization its key had when last verified
 *    here, from the authentication cache; a key never verified here counts as unattributed until the pipeline has
 *    verified it: admission.ts). One over the
 *    organization's cap is refused 429 RATE_LIMITED (`policy: "inflight"`); one over the process's, 503.
 * 2. When the organization's bulkhead would refuse the request now (its places taken and its queue full, or its
 *    expected wait past the deadline, counting its requests still in the pipeline as ahead of it), it is refused
 *    here with the same 429 (`policy: "concurrency"`).
 * Refusals are answered from pre-rendered JSON (prerendered-refusal.ts). Probes are never refused.
 */
export function admitEarly(app: FastifyInstance, deps: EarlyAdmissionDeps): void {
  app.addHook('onRequest', (request, reply, done) => {
    // Probes must answer however busy the process is: a refused liveness probe would get a busy replica killed.
    if (isProbe(request.url)) return done();
    const principal = deps.principalOf(request.headers.authorization);
    const refused = deps.inflight.enter(request.raw, principal?.orgId);
    if (refused) return void sendRefusal(reply, refused);
    // 'close' follows every response: sent, failed, or the client gone before the answer.
    reply.raw.once('close', () => deps.inflight.leave(request.raw));
    const full =
      principal &&
      deps.bulkheads.refusal(principal.orgId, principal.plan, Date.now() + deps.requestTimeoutMs, deps.inflight.countOf(principal.orgId));
    if (full) return void sendRefusal(reply, full);
    done();
  });
}
