import { describe, expect, it } from 'vitest';
import { shutdownSteps } from './bootstrap';

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
