import { createLogger, newId, WriteConflict } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { REQUIRED_SETTINGS, useDatabase } from '../../../../test/support/integration';
import { loadAgentsConfig } from '../config';
import { createDeps } from '../wiring';
import type { AgentRecord } from './agent.repository';
import type { RunRecord } from './run.repository';

const agentRecord = (orgId: string, fields: Partial<AgentRecord> = {}): AgentRecord => ({
  id: newId('aiAgent'),
  org_id: orgId,
  name: 'Greeter',
  type: 'support',
  description: null,
  scope: { sources: ['chatapp'], chatapp_instance_ids: [], tags: [] },
  behavior: {
    strategy: 'always',
    reply_delay_ms: 0,
    max_replies_per_conversation: null,
    handoff: { enabled: false, assign_to: null, triggers: [] },
    business_hours: null,
  },
  ai_config: { instructions: 'Be kind.', model: null, temperature: 0.3 },
  is_active: false,
  deleted_at: null,
  created_at: new Date(),
  updated_at: new Date(),
  ...fields,
});

const runRecord = (orgId: string, fields: Partial<RunRecord> = {}): RunRecord => ({
  id: newId('agentRun'),
  org_id: orgId,
  agent: { id: newId('aiAgent'), name: 'Greeter', type: 'support' },
  conversation_id: newId('conversation'),
  contact_id: newId('contact'),
  channel: 'chatapp',
  event_id: newId('event'),
  trigger_event: 'message.received.from_contact',
  trigger_message_id: newId('message'),
  inbound_at: new Date(),
  status: 'running',
  skip_reason: null,
  error_message: null,
  messages_sent: [],
  handoff: null,
  usage: null,
  model: null,
  duration_ms: null,
  started_at: new Date(),
  completed_at: null,
  phase: 'waiting',
  due_at: new Date(Date.now() - 1_000),
  lease_until: null,
  reply_message_id: newId('message'),
  ...fields,
});

describe('agent, run and conversation-state repositories', () => {
  let deps: ReturnType<typeof createDeps>;
  useDatabase('agents', (storage) => (deps = createDeps(storage, loadAgentsConfig(REQUIRED_SETTINGS), createLogger('test', 'silent'))));

  it('creates an agent at revision 1, bumps it on every write, and refuses a replacement read before a deactivation', async () => {
    const orgId = newId('organization');
    const agent = await deps.agents.insert(agentRecord(orgId));
    expect(agent.rev).toBe(1);
    expect(await deps.agents.setActive(orgId, agent.id, true, new Date())).toMatchObject({ is_active: true, rev: 2 });
    await expect(deps.agents.updateAtRevision(orgId, agent.id, 1, { name: 'Stale' })).rejects.toBeInstanceOf(WriteConflict);
    expect(await deps.agents.softDelete(orgId, agent.id, new Date())).toBe(true);
    expect(await deps.agents.getById(orgId, agent.id)).toBeNull();
    expect(await deps.agents.getForRun(orgId, agent.id)).toMatchObject({ is_active: false, rev: 3 });
  });

  it('lets 6 concurrent activations take at most the plan limit of 2 active-agent slots', async () => {
    const orgId = newId('organization');
    const agents = Array.from({ length: 6 }, () => newId('aiAgent'));
    const taken = await Promise.all(agents.map((id) => deps.agents.takeSlot(orgId, id, 2, new Date())));
    expect(taken.filter(Boolean)).toHaveLength(2);
    const holder = agents[taken.indexOf(true)]!;
    expect(await deps.agents.takeSlot(orgId, holder, 2, new Date())).toBe(true);
  });

  it('records one run per event and agent, and gives each due run to exactly one of 4 concurrent schedulers', async () => {
    const orgId = newId('organization');
    const run = runRecord(orgId);
    expect(await deps.runs.insert(run)).toBe(true);
    expect(await deps.runs.insert({ ...run, id: newId('agentRun') })).toBe(false);
    const others = Array.from({ length: 5 }, () => runRecord(orgId));
    for (const other of others) await deps.runs.insert(other);
    const now = new Date();
    const claimed: RunRecord[] = [];
    // Rounds of 4 racing claims of up to 4 runs each, until none is left: each run is taken once, by one of them.
    for (let round = 0; round < 6; round++) {
      const claims = await Promise.all([1, 2, 3, 4].map(() => deps.runs.claimDue(now, new Date(now.getTime() + 30_000), 4)));
      if (claims.every((batch) => batch.length === 0)) break;
      claimed.push(...claims.flat());
    }
    const mine = [run.id, ...others.map((other) => other.id)].sort();
    const ids = claimed.map((claimedRun) => claimedRun.id);
    expect(ids.filter((id) => mine.includes(id)).sort()).toEqual(mine);
    expect(claimed.every((claimedRun) => claimedRun.phase === 'executing')).toBe(true);
    expect(await deps.runs.getById(orgId, run.id)).not.toHaveProperty('lease_token');
    expect(await deps.runs.skipWaiting(run.id, 'superseded', new Date())).toBe(false);
    expect(await deps.runs.finish(run.id, { status: 'completed' })).toBe(true);
    expect(await deps.runs.getById(orgId, run.id)).toMatchObject({ status: 'completed', phase: null });
  });

  it('tells a first execution from a run claimed again after its lease expired (only the first may skip looking for its reply)', async () => {
    const run = runRecord(newId('organization'));
    await deps.runs.insert(run);
    const claimMine = async (leaseUntil: Date) => {
      const claimed = await deps.runs.claimDue(new Date(), leaseUntil, 100);
      return claimed.find((candidate) => candidate.id === run.id);
    };
    // Claimed from waiting with a lease already over: the next pass takes it again, as after a replica's crash.
    expect(await claimMine(new Date(Date.now() - 1_000))).toMatchObject({ phase: 'executing', first_execution: true });
    expect(await claimMine(new Date(Date.now() + 30_000))).toMatchObject({ phase: 'executing', first_execution: false });
  });

  it('creates one state per conversation under concurrent first reads, and sets it only while the expected fields hold', async () => {
    const orgId = newId('organization');
    const conversationId = newId('conversation');
    const states = await Promise.all(Array.from({ length: 6 }, () => deps.states.get(orgId, conversationId)));
    expect(states.every((state) => state.pending_run_id === null && state.id === conversationId)).toBe(true);
    const [first, second] = [newId('agentRun'), newId('agentRun')];
    const swaps = await Promise.all(
      [first, second].map((id) => deps.states.compareAndSet(orgId, conversationId, { pending_run_id: null }, { pending_run_id: id })),
    );
    expect(swaps.filter(Boolean)).toHaveLength(1);
    expect(await Promise.all([1, 2, 3].map(() => deps.states.recordFailure(orgId, conversationId)))).toEqual(
      expect.arrayContaining([1, 2, 3]),
    );
  });
});
