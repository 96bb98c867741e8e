import { AppError } from '@crm/shared';
import type { CustomFieldEntity, CustomFieldRecord } from '../repository/custom-field.repository';
import type { CrmDeps } from './deps';

type Issue = { field: string; issue: string; allowed?: unknown[] };

/**
 * Checks custom field values against the organization's active definitions for the entity: known key, value
 * of the field's type, option among the allowed ones, required fields present. Returns the values to store,
 * with defaults filled in for absent fields on create.
 */
export async function checkCustomFields(
  deps: Pick<CrmDeps, 'customFields'>,
  orgId: string,
  entity: CustomFieldEntity,
  values: Record<string, unknown>,
  mode: 'create' | 'replace',
): Promise<Record<string, unknown>> {
  const definitions = await deps.customFields.activeFor(orgId, entity);
  const byKey = new Map(definitions.map((definition) => [definition.key, definition]));
  const issues: Issue[] = [];
  const result: Record<string, unknown> = {};

  for (const [key, value] of Object.entries(values)) {
    const definition = byKey.get(key);
    if (!definition) {
      issues.push({ field: `custom_fields.${key}`, issue: `no active ${entity} custom field has this key`, allowed: [...byKey.keys()] });
      continue;
    }
    const problem = value === null ? null : valueProblem(definition, value);
    if (problem) issues.push({ field: `custom_fields.${key}`, ...problem });
    else result[key] = value;
  }
  for (const definition of definitions) {
    if (
      isAbsent(values, definition.key) &&
      mode === 'create' &&
      definition.default_value !== null &&
      definition.default_value !== undefined
    ) {
      // The definitions are shared by every request of the replica (the repository's cache): the value is copied.
      result[definition.key] = structuredClone(definition.default_value);
    }
    const present = result[definition.key];
    if (definition.required && (present === undefined || present === null || present === '')) {
      issues.push({ field: `custom_fields.${definition.key}`, issue: 'is required' });
    }
  }
  if (issues.length > 0) {
    throw new AppError('VALIDATION_ERROR', `Invalid custom fields: ${issues.map((i) => `${i.field} ${i.issue}`).join('; ')}.`, {
      fields: issues,
    });
  }
  return result;
}

/**
 * `deps` whose custom field definitions are read once per organization and entity, for every item of one batch
 * upsert: one request, one view of the definitions, and one query instead of one per item.
 */
export function withDefinitionsOnce<D extends Pick<CrmDeps, 'customFields'>>(deps: D): D {
  const read = new Map<string, Promise<readonly CustomFieldRecord[]>>();
  const activeFor = (orgId: string, entity: CustomFieldEntity) => {
    const key = `${orgId}|${entity}`;
    const definitions = read.get(key) ?? deps.customFields.activeFor(orgId, entity);
    read.set(key, definitions);
    return definitions;
  };
  return { ...deps, customFields: { ...deps.customFields, activeFor } };
}

const isAbsent = (values: Record<string, unknown>, key: string) => !Object.prototype.hasOwnProperty.call(values, key);

function valueProblem(definition: CustomFieldRecord, value: unknown): Omit<Issue, 'field'> | null {
  switch (definition.type) {
    case 'text':
    case 'textarea':
      return typeof value === 'string' ? null : { issue: 'must be a string' };
    case 'email':
      return typeof value === 'string' && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? null : { issue: 'must be an e-mail address' };
    case 'phone':
      return typeof value === 'string' && /^\+?[0-9 ()-]{5,20}$/.test(value) ? null : { issue: 'must be a phone number' };
    case 'url':
      return typeof value === 'string' && /^https?:\/\/\S+$/.test(value) ? null : { issue: 'must be an http(s) URL' };
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : { issue: 'must be a number' };
    case 'boolean':
      return typeof value === 'boolean' ? null : { issue: 'must be a boolean' };
    case 'date':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) && /^\d{4}-\d{2}-\d{2}/.test(value)
        ? null
        : { issue: 'must be an ISO 8601 date' };
    case 'select':
      return typeof value === 'string' && (definition.options ?? []).includes(value)
        ? null
        : { issue: 'must be one of the options', allowed: definition.options ?? [] };
    case 'multiselect':
      return Array.isArray(value) && value.every((item) => (definition.options ?? []).includes(item as string))
        ? null
        : { issue: 'must be a list of the options', allowed: definition.options ?? [] };
  }
}
