import type { CrmClient, operations, RequestBody } from '@crm/client';

/** A valid AiAgentInput (camelCase) with overrides; by default every source, no delay, no cap, no handoff. */
export function agentBody(overrides: Record<string, unknown> = {}): AgentBody {
  return {
    name: 'Sales helper',
    type: 'sales',
    description: 'Answers first questions',
    scope: { sources: ['chatapp', 'photoapp', 'socialmsg'] },
    behavior: { strategy: 'always', replyDelayMs: 0 },
    aiConfig: {
      instructions: [
        'You are a helpful sales assistant.',
        'When the customer asks about price: Our plans start at 10 dollars.',
        'Fallback: Thanks, {first_name}! How can we help?',
      ].join('\n'),
      temperature: 0.2,
    },
    ...overrides,
  } as AgentBody;
}

/** The camelCase create/replace body (overrides may make it invalid on purpose: the server is what checks it). */
type AgentBody = RequestBody<'/v1/ai-agents', 'post'>;

/** Creates and activates an agent; returns its view. */
export async function activeAgent(client: CrmClient, overrides: Record<string, unknown> = {}): Promise<any> {
  const created = await client.POST('/v1/ai-agents', { body: agentBody(overrides) as RequestBody<'/v1/ai-agents', 'post'> });
  if (created.response.status !== 201) throw new Error(`agent not created: ${JSON.stringify(created.error)}`);
  const activated = await client.POST('/v1/ai-agents/{id}/activate', { params: { path: { id: created.data!.data.id } } });
  if (activated.response.status !== 200) throw new Error(`agent not activated: ${JSON.stringify(activated.error)}`);
  return activated.data!.data;
}

/** The agent's runs (newest first). */
export async function runsOf(client: CrmClient, query: RunsQuery): Promise<any[]> {
  const response = await client.GET('/v1/ai-agents/runs', { params: { query: { limit: 100, ...query } } });
  if (response.response.status !== 200) throw new Error(`runs: ${JSON.stringify(response.error)}`);
  return response.data!.data;
}

type RunsQuery = Omit<NonNullable<operations['listAiAgentRuns']['parameters']['query']>, 'limit'>;
