import { notFound, type KeysetPosition } from '@crm/shared';
import type { AgentsDeps } from './deps';
import { viewRun, type RunView } from './views';

interface RunFilter {
  agent_id?: string | null;
  conversation_id?: string | null;
  status?: string | null;
  started_after?: string | null;
}

/** #72: newest first; unlike other lists, meta.total counts with the filters (spec §4). */
export async function listRuns(deps: AgentsDeps, orgId: string, query: RunFilter & { limit: number; after: KeysetPosition | undefined }) {
  const { limit: _limit, after: _after, ...filter } = query;
  const [page, total] = await Promise.all([deps.runs.list(orgId, query), deps.runs.count(orgId, filter)]);
  return { items: page.items.map(viewRun), hasMore: page.hasMore, next: page.next, total };
}

/** #73 */
export async function getRun(deps: AgentsDeps, orgId: string, id: string): Promise<RunView> {
  const record = await deps.runs.getById(orgId, id);
  if (!record) throw notFound('AI agent run');
  return viewRun(record);
}
