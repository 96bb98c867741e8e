import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatewayConfig } from '../../gateway/src/config';
import { agentsConfig } from '../../services/agents/src/config';
import { crmConfig } from '../../services/crm/src/config';
import { messagingConfig } from '../../services/messaging/src/config';
import { webhooksConfig } from '../../services/webhooks/src/config';

const SCHEMAS = { gateway: gatewayConfig, crm: crmConfig, messaging: messagingConfig, agents: agentsConfig, webhooks: webhooksConfig };
/** Read by the local stack's scripts (deploy/local), not by a process's schema. */
const SCRIPT_VARIABLES = ['STACK_MONGO_PORT', 'STACK_KAFKA_PORT'];

/** The variables the first column of README's configuration table names. */
function documentedVariables(): Set<string> {
  const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
  const firstColumns = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|')[1]!);
  return new Set(firstColumns.flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!)));
}

describe("README's configuration table", () => {
  const documented = documentedVariables();

  it.each(Object.entries(SCHEMAS))('lists every variable the %s reads', (_process, schema) => {
    const missing = Object.keys(schema.shape).filter((variable) => !documented.has(variable));
    expect(missing).toEqual([]);
  });

  it('lists no variable that no process reads', () => {
    const read = new Set([...Object.values(SCHEMAS).flatMap((schema) => Object.keys(schema.shape)), ...SCRIPT_VARIABLES]);
    expect([...documented].filter((variable) => !read.has(variable))).toEqual([]);
  });
});
