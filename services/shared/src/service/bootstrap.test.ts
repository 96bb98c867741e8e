import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { shutdownSteps, startInOrder } from './bootstrap';

describe('the graceful shutdown of a service', () => {
  it('drains before it stops listening, stops consumers before workers, and flushes the relay before closing Kafka', async () => {
    const calls: string[] = [];
    const record = (name: string) => () => void calls.push(name);
    const steps = shutdownSteps({
      config: { SHUTDOWN_DRAIN_MS: 0, SHUTDOWN_GRACE_MS: 5 } as never,
      server: { drain: record('health'), stop: async () => record('grpc')() } as never,
      listeners: { callbacks: { start: () => undefined, stop: record('callbacks') } },
      consumers: { intake: { start: () => undefined, stop: record('consumer') } },
      workers: { sender: { start: () => undefined, stop: record('worker') } },
      relay: { stop: async () => record('relay')() } as never,
      bus: { stopConsumers: async () => record('leave groups')(), close: async () => record('kafka')() } as never,
      close: record('clients'),
      storage: { close: async () => record('database')() },
    });
    for (const step of steps.filter((candidate) => candidate.name !== 'telemetry')) await step.run();
    expect(calls).toEqual(['health', 'grpc', 'callbacks', 'consumer', 'leave groups', 'worker', 'relay', 'kafka', 'clients', 'database']);
  });
});

describe('the start of a service', () => {
  it('serves calls and provider callbacks while its consumers are still joining their groups', async () => {
    const calls: string[] = [];
    const record = (name: string) => () => void calls.push(name);
    let joined: () => void = () => undefined;
    const started = startInOrder(createLogger('test', 'silent'), {
      workers: { sender: { start: record('worker') } },
      server: async () => record('grpc')(),
      listeners: { callbacks: { start: record('callbacks') } },
      // A group join that lasts as long as a crashed member's session.
      consumers: { intake: { start: () => new Promise<void>((done) => (joined = () => done(record('consumer')()))) } },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual(['worker', 'grpc', 'callbacks']);
    joined();
    await started;
    expect(calls).toEqual(['worker', 'grpc', 'callbacks', 'consumer']);
  });
});
