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

  it('stops only what has started when the signal comes during start-up, without waiting out a drain', async () => {
    const calls: string[] = [];
    const running = {
      config: { SHUTDOWN_DRAIN_MS: 60_000, SHUTDOWN_GRACE_MS: 5 } as never,
      storage: { close: async () => void calls.push('database') },
    };
    const steps = shutdownSteps(running);
    // Kafka was reached meanwhile: the steps read what has started when they run, not when they were made.
    Object.assign(running, {
      bus: { stopConsumers: async () => void calls.push('leave groups'), close: async () => void calls.push('kafka') },
    });
    for (const step of steps.filter((candidate) => candidate.name !== 'telemetry')) await step.run();
    expect(calls).toEqual(['leave groups', 'kafka', 'database']);
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

  it('hands each part to the shutdown as soon as it runs, and starts nothing more once the shutdown has begun', async () => {
    const calls: string[] = [];
    const stopping = new AbortController();
    const started: Parameters<typeof startInOrder>[2] = {};
    const intake = { start: () => void calls.push('intake'), stop: () => undefined };
    // SIGTERM while the first consumer joins its group (health already passes: the server is bound).
    const replies = { start: () => void calls.push('replies') };
    await startInOrder(
      createLogger('test', 'silent'),
      {
        server: async () => 'server',
        consumers: { intake: { ...intake, start: () => (stopping.abort(), intake.start()) }, replies },
      },
      started,
      stopping.signal,
    );
    expect(calls).toEqual(['intake']);
    expect(started.server).toBe('server');
    expect(Object.keys(started.consumers ?? {})).toEqual(['intake']);
  });
});
