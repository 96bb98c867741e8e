import { createServer } from 'node:net';

/** Ports this process has handed out: the OS may offer a released one again, to another of our processes. */
const handedOut = new Set<number>();

/**
 * A loopback port that is free right now (the OS picks it), for processes started by tests and benchmarks. Never
 * the same port twice in one process: a port is released before its process binds it, and the OS could offer it
 * again to the next call (two processes of one system then fight over it).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await osFreePort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

function osFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** `count` free loopback ports. */
export const freePorts = (count: number): Promise<number[]> => Promise.all(Array.from({ length: count }, () => freePort()));

/**
 * Free ports for `replicas` replicas of every service (gRPC; messaging also its callback listener) and the one
 * simulator: the service part of a system's port plan (see SystemOptions in system.ts).
 */
export async function servicePorts(replicas: number) {
  return {
    crmPorts: await freePorts(replicas),
    webhooksPorts: await freePorts(replicas),
    messagingPorts: await Promise.all(Array.from({ length: replicas }, async () => ({ grpc: await freePort(), http: await freePort() }))),
    agentsPorts: await freePorts(replicas),
    simulatorPort: await freePort(),
  };
}
