import { AsyncLocalStorage } from 'node:async_hooks';

const tenants = new AsyncLocalStorage<string>();

/** Runs `work` on behalf of organization `orgId`: the calls it makes are attributed to it (circuit-breaker.ts). */
export const asTenant = <T>(orgId: string, work: () => T): T => tenants.run(orgId, work);

/** The organization whose request is being served, if any. */
export const currentTenant = (): string | undefined => tenants.getStore();
