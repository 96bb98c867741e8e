import { AppError, invalidReference } from '@crm/shared';
import type { AudienceInput, CloudTemplateInput, SendProfile } from '@crm/shared/schemas';
import type { MessagingDeps } from '../deps';
import type { TemplateRecord } from '../../repository/template.repository';
import type { BroadcastAudience, BroadcastRecord, BroadcastTemplate } from '../../repository/broadcast.repository';

/** The camelCase audience of a request, stored (and answered) in snake_case. */
export function audienceRecord(audience: AudienceInput): BroadcastAudience {
  const filters = audience.filters;
  return {
    type: audience.type,
    tags: audience.tags ?? [],
    tags_operator: audience.type === 'tags' ? (audience.tagsOperator ?? 'or') : null,
    contact_ids: audience.contactIds ? [...new Set(audience.contactIds)] : [],
    has_chatapp: audience.hasChatapp ?? null,
    filters: filters
      ? {
          source: filters.source ?? null,
          created_after: filters.createdAfter ?? null,
          created_before: filters.createdBefore ?? null,
          exclude_tags: filters.excludeTags ?? [],
        }
      : null,
  };
}

/** Plans and the broadcast features they include; the catalogue leaves the numbers to us (README). */
const PLAN_FEATURES: Record<string, { broadcasts: boolean; aggressive: boolean }> = {
  free: { broadcasts: false, aggressive: false },
  starter: { broadcasts: true, aggressive: false },
  pro: { broadcasts: true, aggressive: true },
  enterprise: { broadcasts: true, aggressive: true },
};

export function checkPlan(plan: string, sendProfile: SendProfile | undefined): void {
  const features = PLAN_FEATURES[plan] ?? PLAN_FEATURES.free!;
  if (!features.broadcasts)
    throw new AppError('PLAN_RESTRICTION', `Broadcasts are not included in the ${plan || 'free'} plan; upgrade to starter or above.`, {
      feature: 'broadcasts',
      plan,
    });
  if (sendProfile === 'aggressive' && !features.aggressive)
    throw new AppError(
      'PLAN_RESTRICTION',
      `The aggressive send profile is not included in the ${plan} plan; use moderate or upgrade to pro.`,
      {
        feature: 'send_profile.aggressive',
        plan,
      },
    );
}

/** The numbers of a broadcast: chatapp numbers of the organization, all QR-code or all official. */
export async function resolveInstances(deps: MessagingDeps, orgId: string, ids: string[]): Promise<BroadcastRecord['instances']> {
  const found = new Map((await deps.instances.getMany(orgId, ids)).map((instance) => [instance.id, instance]));
  const instances: BroadcastRecord['instances'] = [];
  for (const id of ids) {
    const instance = found.get(id);
    if (!instance || (instance.kind !== 'qrcode' && instance.kind !== 'official')) throw invalidReference('chatappInstanceIds', id);
    instances.push({ id, name: instance.name, channel: instance.kind });
  }
  const channels = new Set(instances.map((instance) => instance.channel));
  if (channels.size > 1)
    throw new AppError(
      'MIXED_PROVIDERS',
      'A broadcast sends from QR-code numbers or from official numbers, not both: official numbers need an approved template, QR-code numbers cannot send one.',
      {
        qrcode: instances.filter((i) => i.channel === 'qrcode').map((i) => i.id),
        official: instances.filter((i) => i.channel === 'official').map((i) => i.id),
      },
    );
  return instances;
}

/**
 * The template of an official broadcast: linked to one of its numbers, in exactly this language, APPROVED, with the
 * same name and language APPROVED on every other number of the broadcast, and a source for every variable.
 */
export async function resolveTemplate(
  deps: MessagingDeps,
  orgId: string,
  instances: BroadcastRecord['instances'],
  input: CloudTemplateInput,
): Promise<BroadcastTemplate> {
  if (instances.some((instance) => instance.channel === 'qrcode'))
    throw new AppError(
      'TEMPLATE_ON_QRCODE_BROADCAST',
      'QR-code numbers send free text, not templates: remove cloudTemplate and set message, or use official numbers.',
      { template_id: input.templateId },
    );
  const template = await deps.templates.getById(orgId, input.templateId);
  if (!template || !instances.some((instance) => instance.id === template.instance_id))
    throw templateNotFound(
      input,
      template ? 'It is linked to a number that is not in this broadcast.' : 'No such template in the organization.',
    );
  if (template.language !== input.language)
    throw templateNotFound(input, `The template is in ${template.language}; the language must match exactly.`);
  if (template.status !== 'APPROVED')
    throw new AppError(
      'TEMPLATE_NOT_APPROVED',
      `The template ${template.name} (${template.language}) is ${template.status}; only APPROVED templates can be sent.`,
      {
        template_id: template.id,
        status: template.status,
      },
    );
  for (const instance of instances) {
    if (instance.id === template.instance_id) continue;
    const twin = (await deps.templates.findByName(orgId, instance.id, template.name)).find((t) => t.language === template.language);
    if (twin?.status !== 'APPROVED')
      throw templateNotFound(input, `The number ${instance.name} has no APPROVED ${template.name} (${template.language}) template.`);
  }
  return {
    template_id: template.id,
    name: template.name,
    language: template.language,
    category: template.category,
    variables: checkVariables(template, input),
  };
}

function templateNotFound(input: CloudTemplateInput, reason: string): AppError {
  return new AppError('TEMPLATE_NOT_FOUND', `Template ${input.templateId} (${input.language}) cannot be sent: ${reason}`, {
    template_id: input.templateId,
    language: input.language,
  });
}

/** Every variable of the template gets a source, and no source names a variable the template lacks. */
function checkVariables(template: TemplateRecord, input: CloudTemplateInput): BroadcastTemplate['variables'] {
  const given = input.variables ?? [];
  const name = (v: { component: string; key: string }) => `${v.component}.${v.key}`;
  const expected = new Set(template.variables.map(name));
  const provided = new Set(given.map(name));
  const fields = [
    ...[...expected].filter((v) => !provided.has(v)).map((v) => ({ field: 'cloudTemplate.variables', issue: `missing a source for ${v}` })),
    ...[...provided]
      .filter((v) => !expected.has(v))
      .map((v) => ({ field: 'cloudTemplate.variables', issue: `the template has no variable ${v}` })),
  ];
  if (fields.length > 0)
    throw new AppError('VALIDATION_ERROR', `Invalid request: ${fields.map((f) => `${f.field}: ${f.issue}`).join('; ')}.`, { fields });
  // Stored in the template's order: the parameters of a component are positional at the provider.
  const position = (v: { component: string; key: string }) => template.variables.findIndex((t) => name(t) === name(v));
  return [...given]
    .sort((a, b) => position(a) - position(b))
    .map((v) => ({
      key: v.key,
      component: v.component,
      source_type: v.sourceType,
      source_key: v.sourceKey ?? null,
      fallback: v.fallback ?? null,
      value: v.value ?? null,
    }));
}

/** An explicit contact list names live contacts of the organization only. */
export async function checkContactIds(deps: MessagingDeps, orgId: string, audience: BroadcastAudience): Promise<void> {
  if (audience.type !== 'contacts') return;
  const found = new Set<string>();
  const stream = deps.broadcasts.audience.streamAudience({
    org_id: orgId,
    type: 'contacts',
    tags: [],
    tags_operator: 'or',
    contact_ids: audience.contact_ids,
    exclude_tags: [],
    page_size: 1000,
  });
  for await (const page of stream) for (const contact of page.contacts) found.add(contact.id);
  const missing = audience.contact_ids.find((id) => !found.has(id));
  if (missing) throw invalidReference('audience.contactIds', missing);
}
