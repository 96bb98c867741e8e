/**
 * The event kinds a webhook can subscribe to: the event catalogue (services/shared/src/events) is the one list;
 * request validation (an unknown kind is a VALIDATION_ERROR listing the valid ones) takes its names from there.
 */
export { EVENT_KINDS, EVENT_TYPE_NAMES, isEventType, type EventKind, type EventType } from '../events/event-catalogue';
