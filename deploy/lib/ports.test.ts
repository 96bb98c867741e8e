import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, freePortWith } from './ports';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

const listens = (port: number): Promise<boolean> =>
  new Promise((done) => {
    const server = createServer()
      .once('error', () => done(false))
      .listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });

describe('free ports for the processes tests start', () => {
  it('are below the ephemeral range and never handed out twice', async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(50);
    for (const port of ports) expect(port).toBeLessThan(ephemeralLow);
  });

  it('come with their offsets free, below the ephemeral range too', async () => {
    const base = await freePortWith([1, 10]);
    const derived = [base, base + 1, base + 10];
    for (const port of derived) {
      expect(port).toBeLessThan(ephemeralLow);
      expect(await listens(port)).toBe(true);
    }
  });
});
