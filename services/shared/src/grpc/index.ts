/** @crm/shared/grpc: clients with deadlines and breakers, the server, health, handler binding, wire helpers. */
export * from './client';
export * from './deadline';
export * from './handlers';
export * from './paging';
export * from './request-id';
export * from './server';
export * from './service-identity';
export * from './unary';
export * from './wire';
