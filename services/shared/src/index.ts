/**
 * @crm/shared: everything, for the services. Lighter entry points for processes that need less (the gateway
 * loads neither mongoose nor kafkajs): ./core, ./grpc, ./mongo-driver, ./metrics, ./telemetry, ./config,
 * ./schemas, ./service.
 */
export * from './core';
export * from './config';
export * from './grpc';
export * from './mongo/driver';
export * from './kafka/event-bus';
export * from './kafka/kafka-client';
export * from './kafka/event-consumer';
export type { EventData, EventDataInput, EventType } from './events/event-catalogue';
export * from './mongo/connect';
export { routedFilter } from './mongo/filter-routing';
export * from './mongo/conflicts';
export * from './concurrency/due-scheduler';
export * from './mongo/list-page';
export * from './mongo/record-mapper';
export * from './mongo/record-store';
export * from './mongo/revisioned-write';
export * from './mongo/storage';
export * from './mongo/update-document';
export * from './outbox/domain-event';
export * from './outbox/outbox-fields';
export * from './outbox/outbox-relay';
export * from './outbox/outbox-signal';
export * from './telemetry/metrics';
export * from './mongo/derived-fields';
export * from './mongo/escape-regexp';
export * from './mongo/list-window';
export * from './mongo/search-keys';
export * from './providers/callback-signature';
