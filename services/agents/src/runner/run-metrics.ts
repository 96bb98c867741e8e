import { instruments } from '@crm/shared';

const agents = instruments((meter) => ({
  runs: meter.createCounter('crm_agent_runs_total', {
    description: 'Agent runs finished, by outcome (completed, failed, skipped) and whether they handed the conversation off.',
  }),
}));

export function countRun(outcome: 'completed' | 'failed' | 'skipped', handoff = false): void {
  agents().runs.add(1, { outcome, handoff: handoff ? 'true' : 'false' });
}
