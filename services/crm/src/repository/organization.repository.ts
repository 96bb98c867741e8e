import { RecordStore, type Storage } from '@crm/shared';
import { Schema } from 'mongoose';

export const PLANS = ['free', 'starter', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface OrganizationRecord {
  id: string;
  name: string;
  plan: Plan;
  currency: string;
  timezone: string;
  created_at: Date;
}

const organizationSchema = new Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    plan: { type: String, required: true, enum: PLANS },
    currency: { type: String, required: true },
    timezone: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'organizations' },
);

export type OrganizationRepository = ReturnType<typeof createOrganizationRepository>;

export function createOrganizationRepository(storage: Storage) {
  const organizations = new RecordStore<OrganizationRecord>(storage, {
    model: 'Organization',
    schema: organizationSchema,
    what: 'organization',
  });
  return {
    insert: (record: OrganizationRecord) => organizations.insert(record),
    getById: (orgId: string) => organizations.findOne({ _id: orgId }),
    findByName: (name: string) => organizations.findOne({ name }),
  };
}
