/**
 * @crm/shared/mongo-driver: the MongoDB driver's part of the storage seam — connecting with the store's
 * capabilities checked, duplicate keys, per-request command counting — without mongoose (the gateway).
 */
export * from './client';
export * from './coalesced-commands';
export * from './command-count';
export * from './store';
