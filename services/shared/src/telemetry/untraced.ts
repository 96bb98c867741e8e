/**
 * Marks outgoing HTTP request options that the HTTP instrumentation must leave alone: no span and no trace headers
 * (webhook deliveries to customers' endpoints: they have a span of their own, and must not learn our trace ids).
 */
export const UNTRACED_REQUEST: unique symbol = Symbol.for('crm.untracedRequest');
