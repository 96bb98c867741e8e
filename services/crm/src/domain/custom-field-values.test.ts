import { AppError } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import type { CustomFieldRecord } from '../repository/custom-field.repository';
import { checkCustomFields } from './custom-field-values';
import type { CrmDeps } from './deps';

const field = (key: string, fields: Partial<CustomFieldRecord>): CustomFieldRecord => ({
  id: `cf_${key}`,
  org_id: 'org_a',
  key,
  label: key,
  type: 'text',
  entity: 'contact',
  options: null,
  default_value: null,
  required: false,
  is_active: true,
  created_at: new Date(0),
  updated_at: new Date(0),
  ...fields,
});

const DEFINITIONS = [
  field('industry', { type: 'select', options: ['retail', 'energy'] }),
  field('employees', { type: 'number' }),
  field('website', { type: 'url' }),
  field('channels', { type: 'multiselect', options: ['mail', 'phone'] }),
  field('tier', { type: 'text', default_value: 'standard' }),
  field('owner_email', { type: 'email', required: true, default_value: 'sales@acme.example' }),
];

const deps = { customFields: { activeFor: async () => DEFINITIONS } } as unknown as Pick<CrmDeps, 'customFields'>;
const check = (values: Record<string, unknown>, mode: 'create' | 'replace' = 'create') =>
  checkCustomFields(deps, 'org_a', 'contact', values, mode);
const issuesOf = async (values: Record<string, unknown>, mode: 'create' | 'replace' = 'create') => {
  const error = await check(values, mode).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('VALIDATION_ERROR');
  return ((error as AppError).details as { fields: Array<{ field: string; issue: string; allowed?: unknown[] }> }).fields;
};

describe('custom field values', () => {
  it('keeps values of the right type and fills the defaults of absent fields on create', async () => {
    expect(await check({ industry: 'retail', employees: 12, website: 'https://acme.example', channels: ['mail'] })).toEqual({
      industry: 'retail',
      employees: 12,
      website: 'https://acme.example',
      channels: ['mail'],
      tier: 'standard',
      owner_email: 'sales@acme.example',
    });
  });

  it('fills no default on a replace, so a required field must be given', async () => {
    expect(await issuesOf({ industry: 'energy' }, 'replace')).toEqual([{ field: 'custom_fields.owner_email', issue: 'is required' }]);
    expect(await check({ owner_email: 'ops@acme.example' }, 'replace')).toEqual({ owner_email: 'ops@acme.example' });
  });

  it('lists every bad value at once: unknown keys with the known ones, wrong types, options outside the list', async () => {
    const issues = await issuesOf({ colour: 'red', employees: '12', industry: 'mining', channels: ['fax'], website: 'ftp://x' });
    expect(issues).toEqual([
      { field: 'custom_fields.colour', issue: 'no active contact custom field has this key', allowed: DEFINITIONS.map((d) => d.key) },
      { field: 'custom_fields.employees', issue: 'must be a number' },
      { field: 'custom_fields.industry', issue: 'must be one of the options', allowed: ['retail', 'energy'] },
      { field: 'custom_fields.channels', issue: 'must be a list of the options', allowed: ['mail', 'phone'] },
      { field: 'custom_fields.website', issue: 'must be an http(s) URL' },
    ]);
  });

  it('takes null as clearing a value, which a required field does not accept', async () => {
    expect(await check({ industry: null, owner_email: 'a@b.co' })).toEqual({ industry: null, tier: 'standard', owner_email: 'a@b.co' });
    expect(await issuesOf({ owner_email: null })).toEqual([{ field: 'custom_fields.owner_email', issue: 'is required' }]);
  });
});
