import { newId } from '@crm/shared';
import { createApiKey, createMember, createOrganization } from '@crm/crm/src/domain/admin';
import type { CrmDeps } from '@crm/crm/src/domain/deps';
import { seedDefaultFunnel } from '@crm/crm/src/domain/funnels';
import { SCOPES } from '@crm/crm/src/domain/scopes';
import type { CustomFieldEntity, CustomFieldType } from '@crm/crm/src/repository/custom-field.repository';

const FIELDS: Array<{
  entity: CustomFieldEntity;
  key: string;
  label: string;
  type: CustomFieldType;
  options?: string[];
  required?: boolean;
}> = [
  { entity: 'contact', key: 'birthday', label: 'Birthday', type: 'date' },
  { entity: 'contact', key: 'plan_interest', label: 'Plan of interest', type: 'select', options: ['basic', 'pro', 'enterprise'] },
  { entity: 'contact', key: 'newsletter', label: 'Newsletter opt-in', type: 'boolean' },
  { entity: 'company', key: 'employees', label: 'Employees', type: 'number' },
  { entity: 'company', key: 'industry_code', label: 'Industry code', type: 'text' },
  { entity: 'deal', key: 'lead_source', label: 'Lead source', type: 'select', options: ['inbound', 'outbound', 'referral'] },
  { entity: 'deal', key: 'competitors', label: 'Competitors', type: 'multiselect', options: ['acme', 'globex', 'initech'] },
];

/**
 * Fills what the API can only read: an organization with members, custom field definitions for every entity,
 * an all-scopes key, and the default funnel (seedDefaultFunnel), so that deals can be created without a funnel_id.
 */
export async function seedDemo(deps: CrmDeps, input: { name: string }, extra: Array<(orgId: string) => Promise<void>> = []) {
  const organization = await createOrganization(deps, { name: input.name, plan: 'pro' });
  const owner = await createMember(deps, organization.id, { name: 'Olivia Owner', email: 'owner@demo.example', role: 'owner' });
  const admin = await createMember(deps, organization.id, { name: 'Adam Admin', email: 'admin@demo.example', role: 'admin' });
  const seller = await createMember(deps, organization.id, { name: 'Sam Seller', email: 'sam@demo.example', role: 'member' });
  const now = deps.now();
  for (const field of FIELDS) {
    await deps.customFields.insert({
      id: newId('customField'),
      org_id: organization.id,
      key: field.key,
      label: field.label,
      type: field.type,
      entity: field.entity,
      options: field.options ?? null,
      default_value: null,
      required: field.required ?? false,
      is_active: true,
      created_at: now,
      updated_at: now,
    });
  }
  await seedDefaultFunnel(deps, organization.id);
  for (const step of extra) await step(organization.id);
  const key = await createApiKey(deps, organization.id, { name: 'Demo key', scopes: [...SCOPES] });
  return { organization_id: organization.id, member_ids: [owner.id, admin.id, seller.id], api_key: key.key, api_key_id: key.id };
}
