import { Schema, type Connection } from 'mongoose';
import { keyset, toPage, type KeysetPage, type KeysetPosition } from '@crm/shared';

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

interface CustomFieldDoc extends Omit<CustomFieldRecord, 'id'> {
  _id: string;
}

const customFieldSchema = new Schema<CustomFieldDoc>(
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

export function createCustomFieldRepository(db: Connection) {
  const CustomField = db.model<CustomFieldDoc>('CustomField', customFieldSchema);
  const toRecord = ({ _id, ...rest }: CustomFieldDoc): CustomFieldRecord => ({
    id: _id,
    ...rest,
    // An empty option list is stored by some writers; the API promises null, never [].
    options: rest.options && rest.options.length > 0 ? rest.options : null,
  });
  return {
    async insert(record: CustomFieldRecord): Promise<void> {
      const { id, ...rest } = record;
      await CustomField.create({ _id: id, ...rest });
    },
    async count(orgId: string): Promise<number> {
      return CustomField.countDocuments({ org_id: orgId });
    },
    async activeFor(orgId: string, entity: CustomFieldEntity): Promise<CustomFieldRecord[]> {
      const docs = await CustomField.find({ org_id: orgId, entity, is_active: true }).lean<CustomFieldDoc[]>();
      return docs.map(toRecord);
    },
    async list(
      orgId: string,
      entity: CustomFieldEntity | undefined,
      limit: number,
      after?: KeysetPosition,
    ): Promise<KeysetPage<CustomFieldRecord>> {
      const { filter, sort } = keyset('created_at', 'desc', after && { ...after, value: new Date(String(after.value)) });
      const query = { org_id: orgId, ...(entity ? { entity } : {}), ...filter };
      const rows = await CustomField.find(query)
        .sort(sort)
        .limit(limit + 1)
        .lean<CustomFieldDoc[]>();
      const page = toPage(rows, limit, (row) => row.created_at.toISOString());
      return { ...page, items: page.items.map(toRecord) };
    },
  };
}
