import { Schema, type Connection } from 'mongoose';

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

interface OrganizationDoc extends Omit<OrganizationRecord, 'id'> {
  _id: string;
}

const organizationSchema = new Schema<OrganizationDoc>(
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

export function createOrganizationRepository(db: Connection) {
  const Organization = db.model<OrganizationDoc>('Organization', organizationSchema);
  const toRecord = ({ _id, ...rest }: OrganizationDoc): OrganizationRecord => ({ id: _id, ...rest });
  return {
    async insert(record: OrganizationRecord): Promise<void> {
      const { id, ...rest } = record;
      await Organization.create({ _id: id, ...rest });
    },
    async getById(orgId: string): Promise<OrganizationRecord | null> {
      const doc = await Organization.findById(orgId).lean<OrganizationDoc>();
      return doc ? toRecord(doc) : null;
    },
    async findByName(name: string): Promise<OrganizationRecord | null> {
      const doc = await Organization.findOne({ name }).lean<OrganizationDoc>();
      return doc ? toRecord(doc) : null;
    },
  };
}
