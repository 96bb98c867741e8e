import { connectStorage, createLogger } from '@crm/shared';
import { optional, text, UsageError, type CliCommand, type CliProgram } from '@crm/shared/cli';
import { loadCrmDatabaseConfig } from '../config';
import { createApiKey, createMember, createOrganization } from '../domain/admin';
import { revokeApiKey } from '../domain/api-keys';
import type { CrmDeps } from '../domain/deps';
import { SCOPES } from '../domain/scopes';
import { PLANS } from '../repository/organization.repository';
import { createDeps } from '../wiring';

const ROLES = ['owner', 'admin', 'member'] as const;
const ORG = { name: 'org', value: '<org_id>', required: true, help: 'the organization (org_…)' } as const;

/** The operator's commands: organizations, members and keys, which the public API can only read. */
export const ADMIN_COMMANDS: ReadonlyArray<CliCommand<CrmDeps>> = [
  {
    name: 'create-org',
    summary: 'creates an organization',
    options: [
      { name: 'name', value: '<name>', required: true, help: 'its display name' },
      { name: 'plan', value: '<plan>', choices: PLANS, help: 'its plan (default pro)' },
      { name: 'currency', value: '<ISO 4217>', help: 'default USD' },
      { name: 'timezone', value: '<IANA zone>', help: 'default UTC' },
    ],
    example: 'create-org --name "Acme" --plan pro --json',
    run: (values, deps) =>
      createOrganization(deps, {
        name: text(values.name),
        plan: optional(values.plan),
        currency: optional(values.currency),
        timezone: optional(values.timezone),
      }),
  },
  {
    name: 'create-member',
    summary: 'adds a member to an organization',
    options: [
      ORG,
      { name: 'name', value: '<name>', required: true, help: 'full name' },
      { name: 'email', value: '<email>', required: true, help: 'e-mail address (stored lower-cased)' },
      { name: 'role', value: '<role>', choices: ROLES, help: 'default member' },
    ],
    example: 'create-member --org org_… --name "Jane Doe" --email jane@acme.example --role admin',
    run: (values, deps) =>
      createMember(deps, text(values.org), {
        name: text(values.name),
        email: text(values.email),
        role: optional(values.role) as (typeof ROLES)[number] | undefined,
      }),
  },
  {
    name: 'create-key',
    summary: 'creates an API key and prints it once (only its SHA-256 is stored)',
    options: [
      ORG,
      { name: 'name', value: '<name>', required: true, help: 'what the key is for' },
      { name: 'scopes', value: '<scope,scope>', help: 'comma-separated scopes (see the scopes command)' },
      { name: 'all-scopes', help: 'every scope instead of --scopes' },
    ],
    example: 'create-key --org org_… --name "backend" --scopes read:contacts,write:contacts --json',
    run: (values, deps) => {
      const scopes = values['all-scopes']
        ? [...SCOPES]
        : text(values.scopes)
            .split(',')
            .map((scope) => scope.trim())
            .filter(Boolean);
      if (scopes.length === 0) throw new UsageError('create-key needs --scopes <scope,scope> or --all-scopes');
      return createApiKey(deps, text(values.org), { name: text(values.name), scopes });
    },
  },
  {
    name: 'revoke-key',
    summary: 'revokes a key (in effect within AUTH_CACHE_TTL_MS)',
    options: [ORG, { name: 'key', value: '<key_id>', required: true, help: 'the key (key_…)' }],
    example: 'revoke-key --org org_… --key key_…',
    run: async (values, deps) => {
      await revokeApiKey(deps, text(values.org), text(values.key));
      return { revoked: text(values.key) };
    },
  },
  {
    name: 'scopes',
    summary: `lists the ${SCOPES.length} scopes`,
    options: [],
    example: 'scopes',
    needsContext: false,
    run: () => Promise.resolve({ scopes: SCOPES }),
  },
];

/** The admin program over the CRM database, with more commands when a caller adds some (the dev tools' seed-demo). */
export function adminProgram(invocation: string, extra: ReadonlyArray<CliCommand<CrmDeps>> = []): CliProgram<CrmDeps> {
  return {
    invocation,
    about: 'Organizations, members and keys of the CRM, which the public API can only read.',
    environment: [
      'MONGODB_URI  the database server (default mongodb://127.0.0.1:27027/?directConnection=true)',
      'CRM_DB_NAME  default crm',
    ],
    commands: [...ADMIN_COMMANDS, ...extra],
    open: async () => {
      const config = loadCrmDatabaseConfig();
      const db = await connectStorage(config.MONGODB_URI, config.CRM_DB_NAME);
      const deps = createDeps(db, createLogger('crm-admin', 'warn'));
      await Promise.all(Object.values(db.connection.models).map((model) => model.init()));
      return { context: deps, close: () => db.close() };
    },
  };
}
