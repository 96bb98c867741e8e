import { currentDeadline } from '@crm/shared/grpc';
import type { FastifyReply } from 'fastify';
import type { InflightRequests } from './inflight-limit';
import { asTenant } from './tenant-context';
import type { TenantBulkheads } from './tenant-bulkhead';

/**
 * Serves `work` for an organization's request in that organization's bulkhead, before the request's deadline,
 * attributing its backend calls to the organization (the circuit breakers count failures per organization).
 * A request that arrived before its key was verified here is first counted against its organization's open
 * requests (inflight-limit.ts), and refused when that is at its cap. A client that hangs up while waiting gives its
 * place up.
 */
export function admitTenant<T>(
  admission: { bulkheads: TenantBulkheads; inflight: InflightRequests },
  principal: { orgId: string; plan: string },
  reply: FastifyReply,
  operation: string,
  work: () => Promise<T>,
): Promise<T> {
  const refused = admission.inflight.attribute(reply.request.raw, principal.orgId);
  if (refused) return Promise.reject(refused);
  const abandoned = new AbortController();
  // Only a client gone before its answer: aborting after every answer built a DOMException per request (profiled).
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abandoned.abort();
  });
  return asTenant(principal.orgId, () =>
    admission.bulkheads.run(principal.orgId, principal.plan, work, { deadline: currentDeadline(), abandoned: abandoned.signal, operation }),
  );
}
