/**
 * The benchmark's webhook receiver as its own process (started by startFastReceiver in receiver.ts): sends its port
 * once listening, then the arrivals in batches every 20 ms over the IPC channel.
 */
import type { AddressInfo } from 'node:net';
import { receiverServer, type Arrival } from './receiver';

let batch: Arrival[] = [];
const server = receiverServer(Number(process.env.RECEIVER_SLOW_MS ?? 2_000), (arrival) => batch.push(arrival));
setInterval(() => {
  if (batch.length === 0) return;
  process.send?.({ arrivals: batch });
  batch = [];
}, 20);
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
