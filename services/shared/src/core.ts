/**
 * @crm/shared/core: what every process shares and nothing heavy — the error catalogue, ids, scopes, the logger,
 * shutdown, time and concurrency helpers. No database or Kafka client loads with it (the gateway's imports).
 */
export * from './concurrency/fair-scheduler';
export * from './concurrency/ttl-cache';
export * from './concurrency/approximate-totals';
export * from './concurrency/with-timeout';
export * from './errors/app-error';
export * from './errors/catalogue';
export * from './errors/grpc-errors';
export * from './errors/transient-error';
export * from './group-by';
export * from './ids';
export * from './logger';
export * from './scopes';
export * from './shutdown';
export * from './time';
