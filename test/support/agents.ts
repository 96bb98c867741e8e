import type { Api } from './api';

/** A valid AiAgentInput (camelCase) with overrides; by default every source, no delay, no cap, no handoff. */
export function agentBody(overrides: Record<string, unknown> = {}): Record<string, any> {
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
  };
}

/** Creates and activates an agent; returns its view. */
export async function activeAgent(client: Api, overrides: Record<string, unknown> = {}): Promise<any> {
  const created = await client.post('/v1/ai-agents', agentBody(overrides));
  if (created.status !== 201) throw new Error(`agent not created: ${JSON.stringify(created.body)}`);
  const activated = await client.post(`/v1/ai-agents/${created.body.data.id}/activate`);
  if (activated.status !== 200) throw new Error(`agent not activated: ${JSON.stringify(activated.body)}`);
  return activated.body.data;
}

/** The agent's runs (newest first). */
export async function runsOf(client: Api, query: string): Promise<any[]> {
  const response = await client.get(`/v1/ai-agents/runs?limit=100&${query}`);
  if (response.status !== 200) throw new Error(`runs: ${JSON.stringify(response.body)}`);
  return response.body.data;
}
