import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoadBalancer, type LoadBalancer } from '../../deploy/lib/load-balancer';
import { startSystem, type RunningSystem } from '../../deploy/lib/system';
import { chaosContext } from './support/context';
import { formatTable, writeReport } from './support/report';
import { runScenario, type ScenarioRow } from './support/run-scenario';
import { scenariosFor } from './support/scenarios';
import { BALANCER_PROBE_MS } from './support/settings';
import { toxiproxy } from './support/toxiproxy';

/**
 * The chaos suite (README "Chaos"): a steady load through two gateways behind a load balancer while one fault at a
 * time hits a replica, Kafka, the database, the network or a receiver; a ledger per scenario then proves that nothing
 * acknowledged was lost. CHAOS_PROFILE=short (the default, inside npm test) runs a subset with shorter faults.
 */
describe('chaos', () => {
  const chaos = chaosContext();
  const proxies = toxiproxy(chaos.toxiproxyUrl);
  const rows: ScenarioRow[] = [];
  let system: RunningSystem;
  let balancer: LoadBalancer;

  beforeAll(async () => {
    system = await startSystem(chaos.options);
    balancer = await startLoadBalancer({
      backends: (chaos.options.gatewayPorts ?? []).map((port) => `http://127.0.0.1:${port}`),
      port: chaos.balancerPort,
      probeIntervalMs: BALANCER_PROBE_MS,
    });
  }, 180_000);

  afterAll(async () => {
    await balancer?.close();
    await system?.stop();
    if (rows.length > 0) {
      console.log(`chaos (${chaos.profile}):\n${formatTable(rows)}\nwritten to ${writeReport(chaos.profile, rows)}`);
    }
  }, 60_000);

  for (const scenario of scenariosFor(chaos.profile)) {
    it(scenario.name, { timeout: 300_000 }, async () => {
      const row = await runScenario(scenario, { system, options: chaos.options, chaos, toxiproxy: proxies, balancer });
      rows.push(row);
      console.log(formatTable([row]));
      expect(row.writesAcked).toBeGreaterThan(0);
      expect({ writesLost: row.writesLost, eventsLost: row.eventsLost, deliveriesLost: row.deliveriesLost }).toEqual({
        writesLost: 0,
        eventsLost: 0,
        deliveriesLost: 0,
      });
      expect(row.badSignatures).toBe(0);
      if (scenario.zeroFailures) expect(row.failures).toEqual({});
      if (scenario.gone) expect(row.notes).not.toContain('NOT PAUSED after 410');
    });
  }
});
