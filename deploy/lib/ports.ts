import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports this process has handed out: a port is released before its process binds it, so a later check could pass. */
const handedOut = new Set<number>();

/**
 * The lowest port of the OS's ephemeral range, from which outgoing connections take their local ports. A listening
 * port chosen inside that range can be taken by any outgoing connection (a database pool, a Kafka client) between
 * the check and the bind, or while a crashed process waits for its restart — then the process fails to bind again
 * and again for as long as that connection lives. Ports below the range are never taken that way.
 */
function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return low && low > 0 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

const FIRST_PORT = 15_000;
const LAST_PORT = ephemeralLow() - 1;

/**
 * A loopback port that is free right now, for processes started by tests and benchmarks: below the ephemeral range
 * (see ephemeralLow) and never the same port twice in one process.
 */
export async function freePort(): Promise<number> {
  if (LAST_PORT - FIRST_PORT < 1_000) return osFreePort(); // an unusual ephemeral range: let the OS choose
  for (;;) {
    const port = FIRST_PORT + Math.floor(Math.random() * (LAST_PORT - FIRST_PORT + 1));
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
}

/**
 * A free port `base` whose `base + offset` ports are free too, all handed out together: for programs that derive
 * their other ports from one setting (npm start's replicas and metrics ports). All stay below the ephemeral range.
 */
export async function freePortWith(offsets: number[]): Promise<number> {
  const span = Math.max(0, ...offsets);
  for (;;) {
    const base = await freePort();
    const others = offsets.map((offset) => base + offset);
    const usable = base + span <= LAST_PORT && others.every((port) => !handedOut.has(port));
    if (usable && (await Promise.all(others.map(bindable))).every(Boolean)) {
      for (const port of others) handedOut.add(port);
      return base;
    }
  }
}

/** Whether `port` can be bound on loopback right now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer()
      .once('error', () => done(false))
      .listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

async function osFreePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer().once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
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
