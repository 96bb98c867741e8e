import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';

export interface RefusedConnectionPause {
  /** Refusals in a row on one connection before it is paused; 0 turns pausing off. */
  afterRefusals: number;
  /** The longest pause: the refusal's Retry-After, at most this; 0 turns pausing off. */
  maxMs: number;
  /** Where the spread of each pause comes from (a test fixes it). */
  random?: () => number;
}

/** Refusals in a row per connection (a success in between starts the count again). */
const streaks = new WeakMap<Socket, number>();

/**
 * A client that keeps sending after being told when to retry costs the process a request's CPU per refusal however
 * cheap the refusal is, and takes it from every other organization's requests. So once a connection has had
 * `afterRefusals` answers in a row with a Retry-After (429, 503), this process stops reading it for a time drawn
 * between half and all of that Retry-After (at most `maxMs`) after the answer is sent: the answer leaves at once, the
 * next request waits unread in the socket, costing nothing until then, and is then served as usual. Never longer, so
 * a client that honours Retry-After never notices; drawn, because a flood's connections, refused together, would
 * otherwise all be read again in the same instant every Retry-After, and each such burst holds every other answer
 * of the process behind it.
 * (Behind a proxy that pools its connections to the gateway among clients, another client's request sent on a paused
 * connection waits too: there, set a larger `afterRefusals`, or 0.)
 */
export function pauseRefusedConnections(app: FastifyInstance, afterAnswer: AfterAnswer): void {
  app.addHook('onResponse', (request, reply, done) => {
    afterAnswer(request.raw.socket, reply.statusCode, Number(reply.getHeader('retry-after')));
    done();
  });
}

/** Told of each answer sent on `socket` (also those sent before Fastify: early-admission.ts). */
export type AfterAnswer = (socket: Socket, status: number, retryAfterSeconds: number) => void;

export function connectionPause(options: RefusedConnectionPause): AfterAnswer {
  if (options.afterRefusals <= 0 || options.maxMs <= 0) return () => undefined;
  const random = options.random ?? Math.random;
  return (socket, status, retryAfterSeconds) => {
    if ((status !== 429 && status !== 503) || !(retryAfterSeconds > 0)) {
      streaks.delete(socket);
      return;
    }
    const streak = (streaks.get(socket) ?? 0) + 1;
    streaks.set(socket, streak);
    if (streak >= options.afterRefusals && !socket.destroyed) {
      const pauseMs = Math.min(retryAfterSeconds * 1000, options.maxMs);
      socket.pause();
      setTimeout(() => socket.resume(), pauseMs * (0.5 + random() / 2)).unref();
    }
  };
}
