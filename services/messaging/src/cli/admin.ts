import { connectStorage, createLogger } from '@crm/shared';
import { parseArgs } from 'node:util';
import { loadMessagingConfig } from '../config';
import { createNumber, createTemplate, setDefaultNumber } from '../domain/admin';
import { seedDemoMessaging } from '../domain/demo-seed';
import { restoreSimulator } from '../domain/sim-restore';
import { createDeps } from '../wiring';

const USAGE = `Usage: npm run messaging-admin -- <command> [options] [--json]

Commands:
  create-number    --org <org_id> --kind qrcode|official|photoapp|socialmsg --name <label> --ref <provider handle>
                   [--phone +15550001000] [--status connected|connecting|disconnected] [--default] [--warmup-limit N]
  set-default      --org <org_id> --id <ci_…>
  create-template  --org <org_id> --instance <ci_…> --name <name> --language en_US [--category utility]
                   [--status APPROVED] [--components '<JSON array in the provider format>']
  seed-demo        --org <org_id>   numbers, templates and conversations made through the provider simulator
  sim-restore      --org <org_id>   tells a restarted provider simulator the organization's numbers and templates

Reads MONGODB_URI, MESSAGING_DB_NAME (default messaging), CLOUD_API_BASE_URL and the other provider settings;
seed-demo and sim-restore also SIM_URL (default http://127.0.0.1:8090).`;

type Options = Record<string, string | boolean | undefined>;

async function run(command: string | undefined, options: Options): Promise<unknown> {
  const config = loadMessagingConfig();
  const db = await connectStorage(config.MONGODB_URI, config.MESSAGING_DB_NAME);
  const deps = createDeps(db, config, createLogger('messaging-admin', 'warn'));
  await Promise.all(Object.values(db.connection.models).map((model) => model.init()));
  const text = (name: string): string => {
    const value = options[name];
    if (typeof value !== 'string' || value.length === 0) throw new Error(`--${name} is required\n\n${USAGE}`);
    return value;
  };
  const optional = (name: string) => (typeof options[name] === 'string' ? (options[name] as string) : undefined);
  try {
    switch (command) {
      case 'create-number':
        return await createNumber(deps, {
          org_id: text('org'),
          kind: text('kind'),
          name: text('name'),
          provider_ref: text('ref'),
          phone_number: optional('phone'),
          status: optional('status'),
          is_default: options.default === true,
          warmup_daily_limit: optional('warmup-limit') ? Number(optional('warmup-limit')) : undefined,
        });
      case 'set-default':
        return await setDefaultNumber(deps, text('org'), text('id'));
      case 'create-template':
        return await createTemplate(deps, {
          org_id: text('org'),
          instance_id: text('instance'),
          name: text('name'),
          language: text('language'),
          category: optional('category') ?? 'utility',
          status: optional('status') ?? 'APPROVED',
          components: JSON.parse(optional('components') ?? '[{"type":"BODY","text":"Hello"}]') as unknown[],
        });
      case 'seed-demo':
        return await seedDemoMessaging(deps, { orgId: text('org'), simUrl: process.env.SIM_URL ?? 'http://127.0.0.1:8090' });
      case 'sim-restore':
        return await restoreSimulator(deps, { orgId: text('org'), simUrl: process.env.SIM_URL ?? 'http://127.0.0.1:8090' });
      default:
        throw new Error(USAGE);
    }
  } finally {
    deps.close();
    await db.close();
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      org: { type: 'string' },
      kind: { type: 'string' },
      name: { type: 'string' },
      ref: { type: 'string' },
      phone: { type: 'string' },
      status: { type: 'string' },
      default: { type: 'boolean' },
      'warmup-limit': { type: 'string' },
      id: { type: 'string' },
      instance: { type: 'string' },
      language: { type: 'string' },
      category: { type: 'string' },
      components: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help || positionals.length === 0) {
    console.log(USAGE);
    return;
  }
  const result = await run(positionals[0], values);
  console.log(values.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
