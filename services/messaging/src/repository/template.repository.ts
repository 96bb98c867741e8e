import { type OutboxEntry, type PageRequest, RecordStore, type Storage, type StoreFilter } from '@crm/shared';
import { Schema } from 'mongoose';

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

const schema = new Schema(
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

export interface TemplateQuery extends PageRequest {
  status?: string | null;
  language?: string | null;
  category?: string | null;
  name?: string | null;
}

export type TemplateRepository = ReturnType<typeof createTemplateRepository>;

export function createTemplateRepository(storage: Storage) {
  const templates = new RecordStore<TemplateRecord>(storage, { model: 'Template', schema, what: 'template', outbox: true });
  return {
    insert: (record: TemplateRecord) => templates.insert(record),

    list(orgId: string, instanceId: string, query: TemplateQuery) {
      const conditions: StoreFilter[] = [{ org_id: orgId, instance_id: instanceId }];
      for (const field of ['status', 'language', 'category', 'name'] as const) if (query[field]) conditions.push({ [field]: query[field] });
      return templates.listPage(conditions, { field: 'created_at', order: 'desc', type: 'date' }, query);
    },

    count: (orgId: string, instanceId: string) => templates.count({ org_id: orgId, instance_id: instanceId }),

    getById: (orgId: string, id: string) => templates.findOne({ _id: id, org_id: orgId }),

    /** Every language of one template name on one number, to tell "absent" from "not in this language". */
    findByName: (orgId: string, instanceId: string, name: string) => templates.findMany({ org_id: orgId, instance_id: instanceId, name }),

    /** One template of a number by its provider key (a review callback names it so). */
    findOne: (instanceId: string, name: string, language: string) => templates.findOne({ instance_id: instanceId, name, language }),

    /** A provider review (approval changes happen at the provider), conditional on the status read, with its events. */
    setStatus: async (read: TemplateRecord, status: string, at: Date, events: OutboxEntry[]): Promise<boolean> =>
      (await templates.update({ _id: read.id, status: read.status }, { status, updated_at: at }, { events })) !== null,
  };
}
