/**
 * The ceiling: a bare Fastify route and nothing else, in a process of its own like the gateway, so that the load
 * tool and the server do not share one event loop. Started by the benchmark: `BENCH_PORT=… node --import tsx …`.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/ping', async () => ({ ok: true }));

app.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_PORT) }).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
