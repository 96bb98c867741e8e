import { createServer, connect, type Server, type Socket } from 'node:net';

/** Commands the driver's monitoring sends on its own (heartbeats, session ends): not work of the service. */
const HOUSEKEEPING = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'endSessions', 'buildInfo', 'saslStart', 'saslContinue']);
const OP_MSG = 2013;

export interface DbCommandTally {
  /** The MONGODB_URI a process uses to go through the tally. */
  uri: string;
  /** Commands counted so far, `<command>:<collection>` (or `<command>`), housekeeping left out. */
  snapshot(): Map<string, number>;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of the database that counts the commands passing through it: every OP_MSG a client sends,
 * by its first key (the command) and, when that key's value is a string, its collection. It sees what the
 * process sends, whatever sends it (the domain, the outbox relay, the driver's transactions), and costs the
 * process under measure nothing. Replies are passed through unread.
 */
export async function startDbCommandTally(upstreamUri: string): Promise<DbCommandTally> {
  const upstream = new URL(upstreamUri);
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const server = connect(Number(upstream.port || 27017), upstream.hostname);
    sockets.add(client).add(server);
    let pending: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= 16 && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        const name = commandOf(pending.subarray(0, length));
        if (name && !HOUSEKEEPING.has(name.split(':')[0]!)) counts.set(name, (counts.get(name) ?? 0) + 1);
        pending = pending.subarray(length);
      }
      server.write(chunk);
    });
    server.pipe(client);
    const end = () => {
      client.destroy();
      server.destroy();
      sockets.delete(client);
      sockets.delete(server);
    };
    client.on('close', end).on('error', end);
    server.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const uri = new URL(upstreamUri);
  uri.host = `127.0.0.1:${port}`;
  return {
    uri: uri.toString(),
    snapshot: () => new Map(counts),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The command of one OP_MSG: the first element of its body section (kind 0), with its string value if any. */
function commandOf(message: Buffer): string | undefined {
  if (message.length < 27 || message.readInt32LE(12) !== OP_MSG || message[20] !== 0) return undefined;
  const type = message[25];
  const nameEnd = message.indexOf(0, 26);
  if (nameEnd < 0) return undefined;
  const name = message.toString('utf8', 26, nameEnd);
  if (type !== 0x02) return name;
  const size = message.readInt32LE(nameEnd + 1);
  return `${name}:${message.toString('utf8', nameEnd + 5, nameEnd + 4 + size)}`;
}

/** The counts of `after` minus those of `before`, largest first. */
export function tallySince(before: Map<string, number>, after: Map<string, number>): Array<[string, number]> {
  return [...after]
    .map(([name, count]): [string, number] => [name, count - (before.get(name) ?? 0)])
    .filter(([, count]) => count > 0)
    .sort((a, b) => b[1] - a[1]);
}
