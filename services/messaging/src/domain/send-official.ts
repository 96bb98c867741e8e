import { AppError } from '@crm/shared';
import type { SendMessageBody } from '@crm/shared/schemas';
import type { ChatInstanceRecord } from '../repository/chat-instance.repository';
import type { TemplateRecord } from '../repository/template.repository';
import type { MessagingDeps } from './deps';

export interface OfficialPlan {
  template: TemplateRecord | null;
}

/**
 * The rules of an official number, checked before anything leaves: a template must be APPROVED on this number in
 * exactly this language and get every variable; free text needs the contact's 24-hour window; and a provider
 * account without a payment method is refused here, because the provider would accept the send and fail every
 * delivery later with 131042 (spec §7 rule 1).
 */
export async function checkOfficialSend(
  deps: MessagingDeps,
  orgId: string,
  contactId: string,
  instance: ChatInstanceRecord,
  body: SendMessageBody,
  /** This number's approved template as the caller last read it; read again when it is not the one named. */
  known?: TemplateRecord | null,
): Promise<OfficialPlan> {
  const language = body.template_language ?? '';
  const template = !body.template_name
    ? null
    : known?.name === body.template_name && known.language === language && known.instance_id === instance.id
      ? known
      : await approvedTemplate(deps, orgId, instance, body.template_name, language);
  if (template) checkVariables(template, body.template_components ?? []);
  else {
    const conversation = await deps.conversations.find(orgId, contactId, 'chatapp', instance.id);
    const expires = conversation?.window_expires_at ?? null;
    if (!expires || expires.getTime() <= deps.now().getTime()) {
      throw new AppError(
        'OUTSIDE_MESSAGING_WINDOW',
        `Free text to an official number is allowed only within 24 hours of the contact's last message${expires ? ` (the window closed at ${expires.toISOString()})` : ' (the contact never wrote to this number)'}; send an approved template.`,
        {
          window_expires_at: expires ? expires.toISOString() : null,
        },
      );
    }
  }
  await checkBilling(deps, instance);
  return { template };
}

/** The APPROVED template of this name in exactly this language on the number; TEMPLATE_NOT_FOUND with the reason. */
export async function approvedTemplate(
  deps: MessagingDeps,
  orgId: string,
  instance: ChatInstanceRecord,
  name: string,
  language: string,
): Promise<TemplateRecord> {
  const variants = await deps.templates.findByName(orgId, instance.id, name);
  const exact = variants.find((template) => template.language === language);
  if (exact?.status === 'APPROVED') return exact;
  const reason = !variants.length
    ? `No template named ${name} is linked to the number ${instance.name}.`
    : !exact
      ? `The template ${name} has no ${language} version on this number (languages: ${variants.map((t) => t.language).join(', ')}); the language must match exactly.`
      : `The template ${name} (${language}) is ${exact.status}; only APPROVED templates can be sent.`;
  throw new AppError('TEMPLATE_NOT_FOUND', reason, { template_name: name, template_language: language, status: exact?.status ?? null });
}

/** Each variable of the template needs a parameter in the component it belongs to. */
function checkVariables(template: TemplateRecord, components: Array<Record<string, unknown>>): void {
  const missing: string[] = [];
  const counts = new Map<string, number>();
  for (const variable of template.variables) counts.set(variable.component, (counts.get(variable.component) ?? 0) + 1);
  for (const [component, needed] of counts) {
    const [type, index] = component.split(':');
    const given = components.find(
      (c) => String(c.type ?? '').toLowerCase() === type && (index === undefined || String(c.index ?? '') === index),
    );
    const parameters = Array.isArray(given?.parameters) ? given.parameters.length : 0;
    if (parameters < needed)
      missing.push(
        ...template.variables
          .filter((v) => v.component === component)
          .slice(parameters)
          .map((v) => `${component}.${v.key}`),
      );
  }
  if (missing.length > 0) {
    throw new AppError(
      'VALIDATION_ERROR',
      `Invalid request: template_components: the template ${template.name} needs a value for ${missing.join(', ')}.`,
      {
        fields: missing.map((field) => ({ field: 'template_components', issue: `missing parameter ${field}` })),
      },
    );
  }
}

async function checkBilling(deps: MessagingDeps, instance: ChatInstanceRecord): Promise<void> {
  const readAccount = deps.providers.official.account;
  if (!readAccount) return;
  const account = await deps.accounts.get(instance.id, () => readAccount(instance));
  if (!account.payment_method_configured) {
    throw new AppError(
      'TEMPLATE_SEND_ERROR',
      "The official number's cloud-provider account has no payment method or currency configured: the provider would accept this send and then fail its delivery with error 131042. Configure billing at the cloud provider, then retry.",
      {
        provider_code: '131042',
        provider_message: 'Business eligibility payment issue (checked before sending).',
      },
    );
  }
}
