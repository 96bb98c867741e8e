import { AsyncLocalStorage } from 'node:async_hooks';

/** The gRPC metadata key that carries the public request id from the gateway to the services. */
export const REQUEST_ID_METADATA = 'x-request-id';

const requestIds = new AsyncLocalStorage<string>();

/**
 * Runs `work` as part of the API request `requestId`: the gRPC calls it makes carry the id (client.ts), the
 * services serve them under it (unary.ts), and the events it raises record it (newEvent), so GET /v1/events can
 * name the request that caused each event. Held in AsyncLocalStorage, like the deadline, so nothing passes it along.
 */
export const withRequestId = <T>(requestId: string | undefined, work: () => T): T => (requestId ? requestIds.run(requestId, work) : work());

/** The id of the API request being served, if any. */
export const currentRequestId = (): string | undefined => requestIds.getStore();

/** Runs `work` outside any request (a worker loop a request only woke must not attribute its events to it). */
export const outsideRequestId = <T>(work: () => T): T => requestIds.exit(work);
