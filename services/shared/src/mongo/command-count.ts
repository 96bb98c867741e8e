import { AsyncLocalStorage } from 'node:async_hooks';
import type { MongoClient } from 'mongodb';

/**
 * The database commands one request causes, counted with the driver's command monitoring: every command a
 * process sends while serving a request lands in that request's list as `<command>:<collection>`. Services
 * return their list to the gateway in the gRPC response headers; the gateway adds its own and, when asked to
 * (EXPOSE_DB_COMMANDS), answers them in `X-Db-Commands`, which the query-budget test reads.
 */
const requestCommands = new AsyncLocalStorage<string[]>();

export const DB_COMMANDS_METADATA = 'x-db-commands';

/** Starts counting the commands of a client; call once per connection (needs `monitorCommands: true`). */
export function countCommandsOf(client: MongoClient): void {
  client.on('commandStarted', (event) => {
    const collection = (event.command as Record<string, unknown>)[event.commandName];
    requestCommands.getStore()?.push(typeof collection === 'string' ? `${event.commandName}:${collection}` : event.commandName);
  });
}

/** Runs `work` as one request: the commands it causes are collected into the returned list. */
export function withCommandCount<T>(work: () => Promise<T>): { commands: string[]; result: Promise<T> } {
  const commands: string[] = [];
  return { commands, result: requestCommands.run(commands, work) };
}

/** The list of the request being served, to add commands counted elsewhere (a service's answer). */
export const currentCommands = (): string[] | undefined => requestCommands.getStore();
