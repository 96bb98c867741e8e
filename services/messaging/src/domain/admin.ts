import { AppError, newId } from '@crm/shared';
import { CHATAPP_KINDS, INSTANCE_KINDS, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES, type InstanceKind } from '@crm/shared/schemas';
import { templateRegistration } from '../providers/provider';
import type { ChatInstanceRecord, InstanceStatus } from '../repository/chat-instance.repository';
import type { TemplateRecord } from '../repository/template.repository';
import type { MessagingDeps } from './deps';
import { viewChatInstance, viewTemplate } from './views';

/** Operators connect numbers and pages with the admin CLI; the public API only reads them (catalogue §2.8). */
export async function createNumber(
  deps: MessagingDeps,
  input: {
    org_id: string;
    kind: string;
    name: string;
    provider_ref: string;
    phone_number?: string;
    status?: string;
    is_default?: boolean;
    warmup_daily_limit?: number;
  },
) {
  const kind = INSTANCE_KINDS.find((candidate): candidate is InstanceKind => candidate === input.kind);
  if (!kind) throw new AppError('VALIDATION_ERROR', `--kind must be one of ${INSTANCE_KINDS.join(', ')}`);
  const status = (['connected', 'connecting', 'disconnected'] as const).find(
    (candidate): candidate is InstanceStatus => candidate === (input.status ?? 'connected'),
  );
  if (!status) throw new AppError('VALIDATION_ERROR', '--status must be connected, connecting or disconnected');
  const now = deps.now();
  const record: ChatInstanceRecord = {
    id: newId('chatInstance'),
    org_id: input.org_id,
    name: input.name,
    kind,
    provider_ref: input.provider_ref,
    phone_number: input.phone_number ?? null,
    status,
    is_default: false,
    warmup: { active: input.warmup_daily_limit !== undefined, daily_limit: input.warmup_daily_limit ?? null },
    created_at: now,
    updated_at: now,
  };
  await deps.instances.insert(record);
  const isChatapp = (CHATAPP_KINDS as readonly string[]).includes(kind);
  if (isChatapp && (input.is_default || !(await deps.instances.findDefault(input.org_id, [...CHATAPP_KINDS])))) {
    await deps.instances.setDefault(input.org_id, record.id);
    record.is_default = true;
  }
  return viewChatInstance(record);
}

export async function setDefaultNumber(deps: MessagingDeps, orgId: string, id: string) {
  const instance = await deps.instances.getById(orgId, id);
  if (!instance || !(CHATAPP_KINDS as readonly string[]).includes(instance.kind))
    throw new AppError('NOT_FOUND', 'No chatapp number with this id in the organization.');
  await deps.instances.setDefault(orgId, id);
  return viewChatInstance({ ...instance, is_default: true });
}

/**
 * Links a template to an official number: registered at the cloud provider first (where approval happens),
 * then stored. Variables are the {{n}} placeholders of the header and body unless given.
 */
export async function createTemplate(
  deps: MessagingDeps,
  input: {
    org_id: string;
    instance_id: string;
    name: string;
    language: string;
    category: string;
    status: string;
    components: unknown[];
    variables?: TemplateRecord['variables'];
  },
) {
  const instance = await deps.instances.getById(input.org_id, input.instance_id);
  if (!instance || instance.kind !== 'official')
    throw new AppError('VALIDATION_ERROR', 'Templates belong to official numbers of the organization.');
  if (!(TEMPLATE_STATUSES as readonly string[]).includes(input.status))
    throw new AppError('VALIDATION_ERROR', `--status must be one of ${TEMPLATE_STATUSES.join(', ')}`);
  if (!(TEMPLATE_CATEGORIES as readonly string[]).includes(input.category))
    throw new AppError('VALIDATION_ERROR', `--category must be one of ${TEMPLATE_CATEGORIES.join(', ')}`);
  await deps.providers.official.registerTemplate?.(instance, templateRegistration(input));
  const now = deps.now();
  const record: TemplateRecord = {
    id: newId('template'),
    org_id: input.org_id,
    instance_id: instance.id,
    name: input.name,
    language: input.language,
    category: input.category,
    status: input.status,
    components: input.components,
    variables: input.variables ?? variablesOf(input.components),
    created_at: now,
    updated_at: now,
  };
  await deps.templates.insert(record);
  return viewTemplate(record);
}

/** `{{1}}`, `{{name}}` placeholders of HEADER and BODY components, as `[{key, component}]`. */
export function variablesOf(components: unknown[]): TemplateRecord['variables'] {
  const variables: TemplateRecord['variables'] = [];
  for (const raw of components) {
    const component = raw as { type?: unknown; text?: unknown };
    const type = String(component.type ?? '').toLowerCase();
    if ((type !== 'header' && type !== 'body') || typeof component.text !== 'string') continue;
    for (const match of component.text.matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)) variables.push({ key: match[1] ?? '', component: type });
  }
  return variables;
}
