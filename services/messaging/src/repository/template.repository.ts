import { keyset, type KeysetPage, type KeysetPosition, toPage, recordOf } from '@crm/shared';
import { Schema, type Connection, type FilterQuery } from 'mongoose';

export interface TemplateRecord {
  id: string;
  org_id: string;
  instance_id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  components: unknown[];
  variables: Array<{ key: string; component: string }>;
  created_at: Date;
  updated_at: Date;
}

type TemplateDoc = Omit<TemplateRecord, 'id'> & { _id: string };

const schema = new Schema<TemplateDoc>(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    instance_id: { type: String, required: true },
    name: { type: String, required: true },
    language: { type: String, required: true },
    category: { type: String, required: true },
    status: { type: String, required: true },
    components: { type: [Object], default: [] },
    variables: { type: [Object], default: [] },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'templates', minimize: false },
);
schema.index({ org_id: 1, instance_id: 1, created_at: -1, _id: -1 });
schema.index({ instance_id: 1, name: 1, language: 1 }, { unique: true });

export interface TemplateQuery {
  status?: string | null;
  language?: string | null;
  category?: string | null;
  name?: string | null;
  limit: number;
  after: KeysetPosition | undefined;
}

export type TemplateRepository = ReturnType<typeof createTemplateRepository>;

export function createTemplateRepository(db: Connection) {
  const Template = db.model<TemplateDoc>('Template', schema);
  const toRecord = (doc: TemplateDoc): TemplateRecord => recordOf(doc);
  return {
    async insert(record: TemplateRecord): Promise<void> {
      const { id, ...rest } = record;
      await Template.collection.insertOne({ _id: id, ...rest } as never);
    },

    async list(orgId: string, instanceId: string, query: TemplateQuery): Promise<KeysetPage<TemplateRecord>> {
      const after = query.after ? { ...query.after, value: new Date(String(query.after.value)) } : undefined;
      const { filter: position, sort } = keyset('created_at', 'desc', after);
      const conditions: FilterQuery<TemplateDoc>[] = [{ org_id: orgId, instance_id: instanceId }];
      for (const field of ['status', 'language', 'category', 'name'] as const) if (query[field]) conditions.push({ [field]: query[field] });
      if (after) conditions.push(position as FilterQuery<TemplateDoc>);
      const rows = await Template.find({ $and: conditions })
        .sort(sort)
        .limit(query.limit + 1)
        .lean<TemplateDoc[]>();
      const page = toPage(rows, query.limit, (row) => row.created_at.toISOString());
      return { ...page, items: page.items.map(toRecord) };
    },

    async count(orgId: string, instanceId: string): Promise<number> {
      return Template.countDocuments({ org_id: orgId, instance_id: instanceId });
    },

    /** Every language of one template name on one number, to tell "absent" from "not in this language". */
    async getById(orgId: string, id: string): Promise<TemplateRecord | null> {
      const doc = await Template.findOne({ _id: id, org_id: orgId }).lean<TemplateDoc>();
      return doc ? toRecord(doc) : null;
    },

    async findByName(orgId: string, instanceId: string, name: string): Promise<TemplateRecord[]> {
      const docs = await Template.find({ org_id: orgId, instance_id: instanceId, name }).lean<TemplateDoc[]>();
      return docs.map(toRecord);
    },

    /** A provider status callback (approval changes happen at the provider). */
    async setStatus(instanceId: string, name: string, language: string, status: string, at: Date): Promise<boolean> {
      const result = await Template.updateOne({ instance_id: instanceId, name, language }, { $set: { status, updated_at: at } });
      return result.matchedCount === 1;
    },
  };
}
