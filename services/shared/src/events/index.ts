export * from './event-catalogue';
export type { EventKindSpec, EventProducer } from './event-kind';
export * from './event-objects';
export { EXAMPLE_IDS } from './event-examples';
