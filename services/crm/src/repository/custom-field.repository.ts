import { type PageRequest, RecordStore, type Storage, TtlCache } from '@crm/shared';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { Schema } from 'mongoose';

export const CUSTOM_FIELD_ENTITIES = ['contact', 'company', 'deal'] as const;
export type CustomFieldEntity = (typeof CUSTOM_FIELD_ENTITIES)[number];

/** Field types (the spec leaves them open): what the panel offers. */
export const CUSTOM_FIELD_TYPES = [
  'text',
  'textarea',
  'number',
  'boolean',
  'date',
  'email',
  'phone',
  'url',
  'select',
  'multiselect',
] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export interface CustomFieldRecord {
  id: string;
  org_id: string;
  key: string;
  label: string;
  type: CustomFieldType;
  entity: CustomFieldEntity;
  options: string[] | null;
  default_value: unknown;
  required: boolean;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

const customFieldSchema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    key: { type: String, required: true },
    label: { type: String, required: true },
    type: { type: String, required: true, enum: CUSTOM_FIELD_TYPES },
    entity: { type: String, required: true, enum: CUSTOM_FIELD_ENTITIES },
    options: { type: [String], default: null },
    default_value: { type: Schema.Types.Mixed, default: null },
    required: { type: Boolean, required: true },
    is_active: { type: Boolean, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'custom_fields' },
);
customFieldSchema.index({ org_id: 1, entity: 1, key: 1 }, { unique: true });
customFieldSchema.index({ org_id: 1, created_at: -1, _id: -1 });

export type CustomFieldRepository = ReturnType<typeof createCustomFieldRepository>;

/**
 * How long a replica reuses an organization's active definitions (every contact, company and deal write checks
 * them: one query per write otherwise). The cache stays exact across replicas because every write of a definition
 * goes through `insert` below, which answers only once this long has passed since it was stored: by then every
 * replica's copy read before the write has expired (an entry lives from the start of its read), so a request sent
 * after the definition was written is checked against it, on any replica.
 */
export const DEFINITIONS_CACHE_MS = 500;

export function createCustomFieldRepository(storage: Storage) {
  const fields = new RecordStore<CustomFieldRecord>(storage, {
    model: 'CustomField',
    schema: customFieldSchema,
    what: 'custom field',
    // An empty option list is stored by some writers; the API promises null, never [].
    fromStored: (record) => ({ ...record, options: record.options && record.options.length > 0 ? record.options : null }),
  });
  const active = new TtlCache<CustomFieldRecord[]>(DEFINITIONS_CACHE_MS);
  return {
    async insert(record: CustomFieldRecord) {
      const stored = await fields.insert(record);
      active.invalidatePrefix(`${record.org_id}|`);
      await sleep(DEFINITIONS_CACHE_MS);
      return stored;
    },
    count: (orgId: string) => fields.count({ org_id: orgId }),
    /** Shared between requests: read-only to callers. */
    activeFor: (orgId: string, entity: CustomFieldEntity): Promise<readonly CustomFieldRecord[]> =>
      active.get(`${orgId}|${entity}`, () => fields.findMany({ org_id: orgId, entity, is_active: true }), performance.now()),
    list: (orgId: string, entity: CustomFieldEntity | undefined, page: PageRequest) =>
      fields.listPage([{ org_id: orgId, ...(entity ? { entity } : {}) }], { field: 'created_at', order: 'desc', type: 'date' }, page),
  };
}
