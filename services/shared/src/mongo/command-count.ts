import { AsyncLocalStorage } from 'node:async_hooks';
import type { MongoClient } from 'mongodb';

/**
 * Diagnostics of one request (EXPOSE_DB_COMMANDS): the database commands it causes, counted with the driver's
 * command monitoring — every command a process sends while serving the request lands in its list as
 * `<command>:<collection>` — and the bytes of the gRPC messages the gateway sent and received for it. The gateway
 * asks each service for its list with the `x-db-commands` request header; the service answers it in its response
 * headers; the gateway adds its own and answers them in `X-Db-Commands` (read by the query-budget test and
 * `npm run bench`). Without diagnostics nothing is counted: no per-request context, no extra header.
 */
export interface RequestCost {
  commands: string[];
  grpc: { sent: number; received: number };
}

const requestCost = new AsyncLocalStorage<RequestCost>();

export const DB_COMMANDS_METADATA = 'x-db-commands';

/** Starts counting the commands of a client; call once per connection (needs `monitorCommands: true`). */
export function countCommandsOf(client: MongoClient): void {
  client.on('commandStarted', (event) => {
    const cost = requestCost.getStore();
    if (!cost) return;
    const collection = (event.command as Record<string, unknown>)[event.commandName];
    cost.commands.push(typeof collection === 'string' ? `${event.commandName}:${collection}` : event.commandName);
  });
}

/** Runs `work` as one counted request: the commands it causes are collected into the returned list. */
export function withCommandCount<T>(work: () => Promise<T>): { commands: string[]; cost: RequestCost; result: Promise<T> } {
  const cost: RequestCost = { commands: [], grpc: { sent: 0, received: 0 } };
  return { commands: cost.commands, cost, result: requestCost.run(cost, work) };
}

/** The diagnostics of the request being served, when it is counted. */
export const currentCost = (): RequestCost | undefined => requestCost.getStore();
