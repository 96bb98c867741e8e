import { currentDeadline } from '@crm/shared/grpc';
import type { FastifyReply } from 'fastify';
import { asTenant } from './tenant-context';
import type { TenantBulkheads } from './tenant-bulkhead';

/**
 * Serves `work` for an organization's request in that organization's bulkhead, before the request's deadline,
 * attributing its backend calls to the organization (the circuit breakers count failures per organization).
 * A client that hangs up while waiting gives its place up.
 */
export function admitTenant<T>(
  bulkheads: TenantBulkheads,
  principal: { orgId: string; plan: string },
  reply: FastifyReply,
  work: () => Promise<T>,
): Promise<T> {
  const abandoned = new AbortController();
  reply.raw.once('close', () => abandoned.abort());
  return asTenant(principal.orgId, () => bulkheads.run(principal.orgId, principal.plan, work, currentDeadline(), abandoned.signal));
}
