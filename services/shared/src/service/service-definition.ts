import type { ServiceConfig } from '../config';
import type { GrpcServiceBinding } from '../grpc/server';
import type { EventBus } from '../kafka/event-bus';
import type { Logger } from '../logger';
import type { Storage } from '../mongo/storage';
import type { StoreCapability } from '../mongo/store';

/** Something the bootstrap starts, and stops at shutdown: a worker loop, a consumer group, a listener. */
export interface Startable {
  start(): Promise<unknown> | unknown;
  stop?(): Promise<unknown> | unknown;
}

/** Named startables (the names appear in the logs); one left undefined does not run in this process. */
export type Startables = Partial<Record<string, Startable>>;

/** What the bootstrap built, handed to the service's wiring. */
export interface ServiceContext<C extends ServiceConfig, D> {
  config: C;
  logger: Logger;
  storage: Storage;
  bus: EventBus;
  deps: D;
}

/**
 * A service as the shared bootstrap runs it (run-service.ts): its database, its dependencies, the gRPC services it
 * serves, and what else runs beside them. Everything common — configuration, telemetry, connections with their
 * retry, the events topic, the outbox relay, health, metrics and graceful shutdown — is the bootstrap's.
 */
export interface ServiceDefinition<C extends ServiceConfig, D> {
  /** The service's own database, and what it needs of the store beyond what every service does. */
  database: { name: string; requires?: StoreCapability[] };
  /** The repositories, clients and settings its domain functions take (wiring.ts). */
  deps(storage: Storage, logger: Logger): D;
  /** Its gRPC listener and services (server.ts binds the generated definitions to the handlers). */
  grpc(context: ServiceContext<C, D>): { host: string; port: number; services: GrpcServiceBinding[] };
  /** Runs once connected, before anything starts (e.g. re-sealing stored secrets). */
  prepare?(context: ServiceContext<C, D>): Promise<void>;
  /** Engines woken by requests and events (broadcast sender, delivery worker, run scheduler): stopped after the consumers. */
  workers?(context: ServiceContext<C, D>): Startables;
  /** Kafka consumer groups: stopped (their last batch committed, the group left) right after the listeners. */
  consumers?(context: ServiceContext<C, D>): Startables;
  /** Listeners besides gRPC (provider callbacks over HTTP): drained and closed with it. */
  listeners?(context: ServiceContext<C, D>): Startables;
  /** Closes what the dependencies hold (gRPC clients of other services). */
  close?(deps: D): Promise<unknown> | unknown;
}
