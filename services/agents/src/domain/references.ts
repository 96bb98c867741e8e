import { AppError, invalidReference, nullIfNotFound } from '@crm/shared';
import type { AgentInput } from '@crm/shared/schemas';
import type { AgentsDeps } from './deps';

const MAX_PAGES = 50;

/** The numbers named in the scope: chatapp numbers (QR-code or official) of the organization. */
export async function checkNumbers(deps: AgentsDeps, orgId: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    const instance = await nullIfNotFound(deps.messaging.getChatInstance({ org_id: orgId, id }));
    if (!instance || (instance.channel !== 'qrcode' && instance.channel !== 'official'))
      throw invalidReference('scope.chatappInstanceIds', id);
  }
}

/**
 * Scope tags must be tags of the organization (CRM ListTags: tags some contact carries), so that a typo does not
 * silently leave an agent answering nobody.
 */
export async function checkTags(deps: AgentsDeps, orgId: string, tags: string[]): Promise<void> {
  if (tags.length === 0) return;
  const known = new Set<string>();
  let after: { value: unknown; id: string } | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const response = await deps.crm.accounts.listTags({ org_id: orgId, page: { limit: 100, after } });
    for (const tag of response.items) known.add(tag.name.toLowerCase());
    if (!response.page?.has_more || !response.page.next) break;
    after = { value: response.page.next.value, id: response.page.next.id };
  }
  const missing = tags.find((tag) => !known.has(tag.toLowerCase()));
  if (missing !== undefined) throw invalidReference('scope.tags', missing);
}

/** The handoff assignee: an active member of the organization, returned as {id, name}. */
export async function activeMember(deps: AgentsDeps, orgId: string, memberId: string): Promise<{ id: string; name: string }> {
  let after: { value: unknown; id: string } | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const response = await deps.crm.accounts.listMembers({ org_id: orgId, page: { limit: 100, after } });
    const member = response.items.find((candidate) => candidate.id === memberId);
    if (member?.is_active) return { id: member.id, name: member.name };
    if (member || !response.page?.has_more || !response.page.next) break;
    after = { value: response.page.next.value, id: response.page.next.id };
  }
  throw invalidReference('behavior.handoff.assignTo', memberId);
}

/** Every reference of an agent body, checked before anything is stored; the assignee as stored. */
export async function checkReferences(deps: AgentsDeps, orgId: string, input: AgentInput): Promise<{ id: string; name: string } | null> {
  checkModel(deps.settings.allowedModels, input.aiConfig.model);
  await checkNumbers(deps, orgId, input.scope.chatappInstanceIds ?? []);
  await checkTags(deps, orgId, input.scope.tags ?? []);
  const assignTo = input.behavior.handoff?.assignTo;
  return assignTo ? activeMember(deps, orgId, assignTo) : null;
}

/** An agent may name only a model the deployment allows (AGENTS_ALLOWED_MODELS; empty allows any); null is the default. */
export function checkModel(allowed: ReadonlySet<string>, model: string | null | undefined): void {
  if (!model || allowed.size === 0 || allowed.has(model)) return;
  throw new AppError('VALIDATION_ERROR', `aiConfig.model ${model} is not one of the models this deployment allows.`, {
    fields: [{ field: 'aiConfig.model', issue: 'is not an allowed model', allowed: [...allowed] }],
  });
}
