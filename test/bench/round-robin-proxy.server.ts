/**
 * A local TCP load balancer for the scale-out run: each client connection goes to the next upstream port in turn
 * (BENCH_UPSTREAMS=port,port), as a layer-4 balancer in front of gateway replicas does; keep-alive requests stay on
 * their connection. A process of its own, so that it competes with neither the load generator nor the system for
 * an event loop. Started by the benchmark: `BENCH_PORT=… BENCH_UPSTREAMS=… node --import tsx …`.
 */
import { createConnection, createServer } from 'node:net';

const upstreams = (process.env.BENCH_UPSTREAMS ?? '')
  .split(',')
  .map(Number)
  .filter((port) => port > 0);
if (upstreams.length === 0) throw new Error('BENCH_UPSTREAMS lists no port');
let next = 0;

const server = createServer((client) => {
  const upstream = createConnection({ host: '127.0.0.1', port: upstreams[next++ % upstreams.length] as number });
  client.setNoDelay(true);
  upstream.setNoDelay(true);
  client.pipe(upstream).pipe(client);
  const end = () => {
    client.destroy();
    upstream.destroy();
  };
  for (const socket of [client, upstream]) socket.once('error', end).once('close', end);
});
server.listen(Number(process.env.BENCH_PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
