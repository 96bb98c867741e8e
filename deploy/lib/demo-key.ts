import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './local-stack';

const run = promisify(execFile);

interface DemoKey {
  organization_id: string;
  api_key: string;
}

/**
 * The demo organization's key, kept in .local/ (gitignored) so that each `npm start` prints the same key.
 * Seeds a new demo organization when there is none or the stored key no longer works.
 */
export async function ensureDemoKey(
  baseUrl: string,
  env: NodeJS.ProcessEnv,
  file = resolve(REPO_ROOT, '.local/demo-key.json'),
): Promise<DemoKey & { created: boolean }> {
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as DemoKey;
    const me = await fetch(`${baseUrl}/v1/me`, { headers: { authorization: `Bearer ${stored.api_key}` } });
    if (me.ok) {
      // The simulator forgot the demo numbers and templates when it stopped; an older demo has no agent yet.
      await messagingAdmin(['sim-restore', '--org', stored.organization_id, '--json'], env);
      if (!(await hasAgent(baseUrl, stored.api_key))) await seedDemoAgent(baseUrl, stored.api_key);
      return { ...stored, created: false };
    }
  }
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', resolve(REPO_ROOT, 'tools/dev/src/cli/admin.ts'), 'seed-demo', '--json'],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
    },
  );
  const seeded = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as DemoKey;
  await seedDemoMessaging(seeded.organization_id, env);
  await seedDemoAgent(baseUrl, seeded.api_key);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ organization_id: seeded.organization_id, api_key: seeded.api_key }, null, 2), { mode: 0o600 });
  return { ...seeded, created: true };
}

/**
 * The demo organization's numbers, templates and conversations: made by the messaging admin CLI, whose inbound
 * messages go through the provider simulator and the messaging service like any provider callback.
 */
export function seedDemoMessaging(organizationId: string, env: NodeJS.ProcessEnv): Promise<unknown> {
  return messagingAdmin(['seed-demo', '--org', organizationId, '--json'], env);
}

async function messagingAdmin(args: string[], env: NodeJS.ProcessEnv): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', resolve(REPO_ROOT, 'tools/dev/src/cli/messaging-admin.ts'), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as unknown;
}

async function hasAgent(baseUrl: string, apiKey: string): Promise<boolean> {
  const response = await fetch(`${baseUrl}/v1/ai-agents?limit=1`, { headers: { authorization: `Bearer ${apiKey}` } });
  return response.ok && ((await response.json()) as { data: unknown[] }).data.length > 0;
}

/**
 * An active AI agent that answers what a person sends with `npm run sim -- inbound …` (local rule-based model):
 * created and activated through the public API, like a customer would.
 */
export async function seedDemoAgent(baseUrl: string, apiKey: string): Promise<string> {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const body = {
    name: 'Demo assistant',
    type: 'sales',
    description: 'Answers inbound messages of the demo numbers',
    scope: { sources: ['chatapp', 'photoapp', 'socialmsg'] },
    behavior: { strategy: 'always', replyDelayMs: 1500, maxRepliesPerConversation: 20 },
    aiConfig: {
      instructions: [
        'You are the friendly assistant of the demo shop.',
        'Greeting: Hi {first_name}! I am the demo assistant. Ask me about prices, delivery or opening hours.',
        'When the customer asks about price, prices, cost: Our plans start at 10 dollars a month.',
        'When the customer mentions delivery, shipping: We deliver in 2 to 3 working days.',
        'When the customer asks about hours, open: We are open Monday to Friday, 9:00 to 18:00.',
        'Handoff when the customer mentions human, person, agent',
        'Fallback: Thanks, {first_name}! A colleague will follow up soon.',
      ].join('\n'),
      temperature: 0.2,
    },
  };
  const created = await fetch(`${baseUrl}/v1/ai-agents`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!created.ok) throw new Error(`demo agent: ${created.status} ${await created.text()}`);
  const { data } = (await created.json()) as { data: { id: string } };
  const activated = await fetch(`${baseUrl}/v1/ai-agents/${data.id}/activate`, { method: 'POST', headers });
  if (!activated.ok) throw new Error(`demo agent activation: ${activated.status} ${await activated.text()}`);
  return data.id;
}
