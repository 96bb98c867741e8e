import { inject } from 'vitest';
import type { SystemOptions } from '../../../deploy/lib/system';

/** The environment deploy/local/stack.sh reads to run the chaos suite's own Kafka and SecantusDB. */
export interface ChaosStackEnv {
  CRM_STACK_DIR: string;
  STACK_MONGO_PORT: string;
  STACK_KAFKA_PORT: string;
  STACK_KAFKA_CONTROLLER_PORT: string;
}

export type ChaosProfile = 'short' | 'full';

/** What test/chaos/global-setup.ts prepared: the servers are up, the services are started by the test itself. */
export interface ChaosContext {
  profile: ChaosProfile;
  /** The system to start (the test kills and restarts its processes, so they must be the test worker's children). */
  options: SystemOptions;
  /** Where the load balancer in front of the gateway replicas listens: the base URL every client uses. */
  balancerPort: number;
  toxiproxyUrl: string;
  stackEnv: ChaosStackEnv;
}

declare module 'vitest' {
  export interface ProvidedContext {
    chaos: ChaosContext;
  }
}

export const chaosContext = (): ChaosContext => inject('chaos');
