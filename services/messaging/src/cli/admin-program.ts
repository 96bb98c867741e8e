import { AppError, connectStorage, createLogger } from '@crm/shared';
import { optional, text, UsageError, type CliCommand, type CliProgram } from '@crm/shared/cli';
import { INSTANCE_KINDS, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from '@crm/shared/schemas';
import { loadMessagingConfig } from '../config';
import { createNumber, createTemplate, setDefaultNumber } from '../domain/admin';
import type { MessagingDeps } from '../domain/deps';
import { createDeps } from '../wiring';

const ORG = { name: 'org', value: '<org_id>', required: true, help: 'the organization (org_…), checked with the CRM service' } as const;

/**
 * Messaging keeps no organizations of its own: the CRM service says whether one exists, so a number or template
 * is never attached to an organization nobody has.
 */
export async function requireOrganization(deps: MessagingDeps, orgId: string): Promise<void> {
  try {
    await deps.crm.accounts.getMe({ org_id: orgId, key_id: '' });
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') throw new Error(`organization ${orgId} does not exist`);
    if (error instanceof AppError && (error.code === 'SERVICE_UNAVAILABLE' || error.code === 'UPSTREAM_TIMEOUT'))
      throw new Error(
        `cannot check organization ${orgId}: the CRM service does not answer at ${process.env.CRM_GRPC_URL ?? '127.0.0.1:50051'} (CRM_GRPC_URL)`,
      );
    throw error;
  }
}

function parseComponents(value: string | undefined): unknown[] {
  if (value === undefined) return [{ type: 'BODY', text: 'Hello' }];
  try {
    const components: unknown = JSON.parse(value);
    if (Array.isArray(components)) return components;
  } catch {
    // refused below with the same reason
  }
  throw new UsageError(`--components must be a JSON array in the provider format (got '${value.slice(0, 40)}')`);
}

/** The operator's commands: numbers and pages, the default number, templates (the public API only reads them). */
export const MESSAGING_ADMIN_COMMANDS: ReadonlyArray<CliCommand<MessagingDeps>> = [
  {
    name: 'create-number',
    summary: 'connects a number or page of a provider to an organization',
    options: [
      ORG,
      { name: 'kind', value: '<kind>', required: true, choices: INSTANCE_KINDS, help: 'the channel' },
      { name: 'name', value: '<label>', required: true, help: 'what people see in the CRM' },
      { name: 'ref', value: '<provider handle>', required: true, help: "the provider's id of the number or page" },
      { name: 'phone', value: '<+E.164>', help: 'the phone number (QR-code and official numbers)' },
      { name: 'status', value: '<status>', choices: ['connected', 'connecting', 'disconnected'], help: 'default connected' },
      { name: 'default', help: 'make it the default number for sends' },
      { name: 'warmup-limit', value: '<N>', integer: { min: 1 }, help: 'messages a day while the number warms up' },
    ],
    example: 'create-number --org org_… --kind qrcode --name "Sales phone" --ref acme-sales --phone +15550001000',
    run: async (values, deps) => {
      await requireOrganization(deps, text(values.org));
      return createNumber(deps, {
        org_id: text(values.org),
        kind: text(values.kind),
        name: text(values.name),
        provider_ref: text(values.ref),
        phone_number: optional(values.phone),
        status: optional(values.status),
        is_default: values.default === true,
        warmup_daily_limit: optional(values['warmup-limit']) === undefined ? undefined : Number(values['warmup-limit']),
      });
    },
  },
  {
    name: 'set-default',
    summary: 'makes a chatapp number the default for sends',
    options: [ORG, { name: 'id', value: '<ci_…>', required: true, help: 'the number' }],
    example: 'set-default --org org_… --id ci_…',
    run: async (values, deps) => {
      await requireOrganization(deps, text(values.org));
      return setDefaultNumber(deps, text(values.org), text(values.id));
    },
  },
  {
    name: 'create-template',
    summary: 'registers a template of an official number at the provider and stores it',
    options: [
      ORG,
      { name: 'instance', value: '<ci_…>', required: true, help: 'the official number' },
      { name: 'name', value: '<name>', required: true, help: 'the template name' },
      { name: 'language', value: '<code>', required: true, help: 'e.g. en_US' },
      { name: 'category', value: '<category>', choices: TEMPLATE_CATEGORIES, help: 'default utility' },
      { name: 'status', value: '<status>', choices: TEMPLATE_STATUSES, help: 'the review outcome (default APPROVED)' },
      { name: 'components', value: '<JSON array>', help: 'in the provider format (default one BODY "Hello")' },
    ],
    example: `create-template --org org_… --instance ci_… --name order_update --language en_US --components '[{"type":"BODY","text":"Hi {{1}}"}]'`,
    run: async (values, deps) => {
      await requireOrganization(deps, text(values.org));
      return createTemplate(deps, {
        org_id: text(values.org),
        instance_id: text(values.instance),
        name: text(values.name),
        language: text(values.language),
        category: optional(values.category) ?? 'utility',
        status: optional(values.status) ?? 'APPROVED',
        components: parseComponents(optional(values.components)),
      });
    },
  },
];

/** The messaging admin program, with more commands when a caller adds some (the dev tools' seed-demo, sim-restore). */
export function messagingAdminProgram(
  invocation: string,
  extra: ReadonlyArray<CliCommand<MessagingDeps>> = [],
  environment: readonly string[] = [],
): CliProgram<MessagingDeps> {
  return {
    invocation,
    about: 'Numbers, pages and templates of the messaging service, which the public API can only read.',
    environment: [
      'MONGODB_URI        the database server (default mongodb://127.0.0.1:27027/?directConnection=true)',
      'MESSAGING_DB_NAME  default messaging',
      'CRM_GRPC_URL       the CRM service, which knows the organizations (default 127.0.0.1:50051)',
      'CLOUD_API_BASE_URL the official provider, where templates are registered (default http://127.0.0.1:8090)',
      ...environment,
    ],
    commands: [...MESSAGING_ADMIN_COMMANDS, ...extra],
    open: async () => {
      const config = loadMessagingConfig();
      const db = await connectStorage(config.MONGODB_URI, config.MESSAGING_DB_NAME);
      const deps = createDeps(db, config, createLogger('messaging-admin', 'warn'));
      await Promise.all(Object.values(db.connection.models).map((model) => model.init()));
      return {
        context: deps,
        close: async () => {
          deps.close();
          await db.close();
        },
      };
    },
  };
}
