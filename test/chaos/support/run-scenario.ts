import { addNumber } from '../../support/messaging';
import { createFunnel } from '../../support/pipelines';
import { createTestOrg } from '../../support/orgs';
import { startReceiver } from '../../support/webhook-receiver';
import { recoverGoneSubscription } from './gone-receiver';
import { checkLedger, type LedgerCounts } from './ledger';
import { loadClient, startLoad, type Load } from './load';
import type { FaultTarget, Scenario } from './scenarios';

/** One line of the chaos table. */
export interface ScenarioRow extends LedgerCounts {
  scenario: string;
  failedRequests: number;
  /** Failed requests by outcome (`http 503`, `timeout`, …). */
  failures: Record<string, number>;
  /** From the fault's end until the first write started after it was acknowledged; null when none was. */
  recoverySeconds: number | null;
  /** Connections refused by a gateway replica that the load balancer sent to the other one. */
  balancerRetries: number;
  notes: string[];
}

const EVENTS = ['contact.created', 'contact.updated', 'deal.created', 'message.sent'] as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function launchBroadcast(load: Load, client: ReturnType<typeof loadClient>, instanceId: string): Promise<void> {
  const startedAt = Date.now();
  const created = await client.POST('/v1/broadcasts', {
    body: {
      name: 'chaos',
      chatappInstanceIds: [instanceId],
      audience: { type: 'tags', tags: ['bcast'] },
      message: { type: 'text', content: 'chaos broadcast' },
    },
  });
  const id = created.data?.data.id;
  if (!id) return void load.failed.push({ what: 'broadcast', outcome: `http ${created.response.status}`, at: startedAt });
  const launched = await client.POST('/v1/broadcasts/{id}/launch', { params: { path: { id } }, body: {} });
  if (launched.response.status === 202) load.acked.push({ what: 'broadcast', id, events: [], startedAt, endedAt: Date.now() });
  else load.failed.push({ what: 'broadcast launch', outcome: `http ${launched.response.status}`, at: startedAt });
}

/**
 * One scenario on a fresh organization: a subscription on a fresh receiver, a steady load, a broadcast sending while
 * the fault hits, the fault, some load after it, then the ledger.
 */
export async function runScenario(scenario: Scenario, target: Omit<FaultTarget, 'receiver' | 'note'>): Promise<ScenarioRow> {
  const short = target.chaos.profile === 'short';
  const org = await createTestOrg();
  const client = loadClient(org.key);
  const number = await addNumber(org.orgId, 'qrcode');
  // New organizations have no funnel, and a deal needs one.
  await createFunnel(client);
  const receiver = await startReceiver({ status: 200 });
  try {
    const hook = await client.POST('/v1/webhooks', { body: { name: scenario.name, url: receiver.url, events: [...EVENTS] } });
    if (!hook.data) throw new Error(`POST /v1/webhooks answered ${hook.response.status}`);
    const load = startLoad(client, number.id, { workers: 3, pauseMs: 100 });
    await sleep(short ? 2_000 : 4_000);
    await launchBroadcast(load, client, number.id);
    const retriedBefore = target.balancer.retried;
    const faultStart = Date.now();
    const notes: string[] = [];
    const faultEnd = await scenario.inject({ ...target, receiver, note: (text) => notes.push(text) });
    await sleep(short ? 3_000 : 8_000);
    await load.stop();

    notes.unshift(`fault ${((faultEnd - faultStart) / 1000).toFixed(1)} s`);
    let exempt = scenario.exempt;
    if (scenario.gone) {
      const gone = await recoverGoneSubscription(org, client, hook.data.data.id, faultStart);
      if (!gone.paused) notes.push('NOT PAUSED after 410');
      notes.push(`paused: ${gone.paused}, ${gone.redelivered} failed deliveries redelivered`);
      exempt = gone.exempt;
    }
    const ledger = await checkLedger({
      client,
      orgId: org.orgId,
      acked: load.acked,
      subscribers: [{ receiver, secret: hook.data.data.secret as string, exempt }],
      waitMs: short ? 60_000 : 120_000,
    });
    const firstAfter = load.acked.filter((write) => write.startedAt >= faultEnd).sort((a, b) => a.endedAt - b.endedAt)[0];
    const failures: Record<string, number> = {};
    for (const { what, outcome } of load.failed) failures[`${what} ${outcome}`] = (failures[`${what} ${outcome}`] ?? 0) + 1;
    return {
      scenario: scenario.name,
      ...ledger,
      failedRequests: load.failed.length,
      failures,
      recoverySeconds: firstAfter ? Math.round((firstAfter.endedAt - faultEnd) / 100) / 10 : null,
      balancerRetries: target.balancer.retried - retriedBefore,
      notes,
    };
  } finally {
    await receiver.close();
  }
}
