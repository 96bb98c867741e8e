import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { DEFAULT_STREAM_TIMEOUT_MS } from './client';
import { identityServerInterceptor, type IdentityKeys } from './service-identity';

export interface GrpcServiceBinding {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

export interface RunningGrpcServer {
  port: number;
  health: HealthImplementation;
  /** Health answers NOT_SERVING from now on, for every service; calls are still served (the drain). */
  drain(): void;
  /** Stops taking new calls (GOAWAY), lets in-flight calls finish for up to graceMs, then cancels the rest. */
  stop(graceMs?: number): Promise<void>;
}

export interface GrpcServerOptions {
  host: string;
  port: number;
  services: GrpcServiceBinding[];
  /** The keys a caller's token must be signed with (service-identity.ts); only health checks go without. */
  identity: IdentityKeys;
}

/**
 * Starts a gRPC server with the standard grpc.health.v1 service; it reports SERVING once bound. Every other call
 * must carry a valid service token, or it is refused UNAUTHENTICATED before its handler runs.
 */
export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new Server({
    interceptors: [identityServerInterceptor(options.identity)],
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
    // Clients reconnect (and re-resolve a headless Service's DNS) now and then, so new replicas get calls. The
    // grace lets a call already running on an aged connection finish: as long as a stream may last, or an audience
    // stream started late in a connection's life would be cut after 30 s.
    'grpc.max_connection_age_ms': 5 * 60_000,
    'grpc.max_connection_age_grace_ms': DEFAULT_STREAM_TIMEOUT_MS,
  });
  for (const { definition, implementation } of options.services) server.addService(definition, implementation);
  const serviceNames = options.services.map(({ definition }) => serviceName(definition));
  const health = new HealthImplementation(Object.fromEntries(['', ...serviceNames].map((name) => [name, 'NOT_SERVING'])));
  health.addToServer(server);

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${options.host}:${options.port}`, ServerCredentials.createInsecure(), (error, boundPort) =>
      error ? reject(error) : resolve(boundPort),
    );
  });
  for (const name of ['', ...serviceNames]) health.setStatus(name, 'SERVING');

  const drain = () => {
    for (const name of ['', ...serviceNames]) health.setStatus(name, 'NOT_SERVING');
  };
  return {
    port,
    health,
    drain,
    stop: async (graceMs = 10_000) => {
      drain();
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}

/** "/crm.v1.ContactService/ListContacts" → "crm.v1.ContactService". */
function serviceName(definition: ServiceDefinition): string {
  const first = Object.values(definition)[0];
  return first ? (first.path.split('/')[1] ?? '') : '';
}
