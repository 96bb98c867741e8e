import { connectStorage, createLogger } from '@crm/shared';
import { parseArgs } from 'node:util';
import { createApiKey, createMember, createOrganization, revokeApiKey } from '../domain/admin';
import { seedDemo } from '../domain/demo-seed';
import { SCOPES } from '../domain/scopes';
import { loadCrmConfig } from '../config';
import { createDeps } from '../wiring';

const USAGE = `Usage: npm run admin -- <command> [options] [--json]

Commands:
  create-org     --name <name> [--plan free|starter|pro|enterprise] [--currency USD] [--timezone UTC]
  create-member  --org <org_id> --name <name> --email <email> [--role owner|admin|member]
  create-key     --org <org_id> --name <name> [--scopes read:contacts,write:contacts | --all-scopes]
  revoke-key     --org <org_id> --key <key_id>
  seed-demo      [--name "Demo organization"]   creates an organization with members, custom fields, a
                 default funnel and an all-scopes key (prints the key once)
  scopes         lists every scope

Reads MONGODB_URI (default mongodb://127.0.0.1:27027/) and CRM_DB_NAME (default crm).`;

type Options = Record<string, string | boolean | undefined>;

async function run(command: string | undefined, options: Options): Promise<unknown> {
  if (command === 'scopes') return { scopes: SCOPES };
  const config = loadCrmConfig();
  const db = await connectStorage(config.MONGODB_URI, config.CRM_DB_NAME);
  const deps = createDeps(db, createLogger('crm-admin', 'warn'));
  await Promise.all(Object.values(db.connection.models).map((model) => model.init()));
  try {
    const text = (name: string): string => {
      const value = options[name];
      if (typeof value !== 'string' || value.length === 0) throw new Error(`--${name} is required\n\n${USAGE}`);
      return value;
    };
    const optional = (name: string) => (typeof options[name] === 'string' ? (options[name] as string) : undefined);
    switch (command) {
      case 'create-org':
        return await createOrganization(deps, {
          name: text('name'),
          plan: optional('plan'),
          currency: optional('currency'),
          timezone: optional('timezone'),
        });
      case 'create-member':
        return await createMember(deps, text('org'), {
          name: text('name'),
          email: text('email'),
          role: optional('role') as 'owner' | 'admin' | 'member' | undefined,
        });
      case 'create-key': {
        const scopes = options['all-scopes']
          ? [...SCOPES]
          : text('scopes')
              .split(',')
              .map((scope) => scope.trim())
              .filter(Boolean);
        return await createApiKey(deps, text('org'), { name: text('name'), scopes });
      }
      case 'revoke-key':
        await revokeApiKey(deps, text('org'), text('key'));
        return { revoked: text('key') };
      case 'seed-demo':
        return await seedDemo(deps, { name: optional('name') ?? 'Demo organization' });
      default:
        throw new Error(USAGE);
    }
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      name: { type: 'string' },
      plan: { type: 'string' },
      currency: { type: 'string' },
      timezone: { type: 'string' },
      org: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      scopes: { type: 'string' },
      'all-scopes': { type: 'boolean' },
      key: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help || positionals.length === 0) {
    console.log(USAGE);
    return;
  }
  const result = await run(positionals[0], values);
  if (values.json) console.log(JSON.stringify(result));
  else console.log(formatHuman(result));
}

function formatHuman(result: unknown): string {
  if (typeof result !== 'object' || result === null) return String(result);
  return Object.entries(result)
    .map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join('\n');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
