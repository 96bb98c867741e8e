import { Schema, type Connection } from 'mongoose';
import { keyset, toPage, type KeysetPage, type KeysetPosition } from '@crm/shared';

export interface MemberRecord {
  id: string;
  org_id: string;
  name: string;
  email: string;
  role: 'owner' | 'admin' | 'member';
  is_owner: boolean;
  is_active: boolean;
  last_active_at: Date | null;
  avatar_url: string | null;
  created_at: Date;
}

interface MemberDoc extends Omit<MemberRecord, 'id'> {
  _id: string;
}

const memberSchema = new Schema<MemberDoc>(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    email: { type: String, required: true },
    role: { type: String, required: true },
    is_owner: { type: Boolean, required: true },
    is_active: { type: Boolean, required: true },
    last_active_at: { type: Date, default: null },
    avatar_url: { type: String, default: null },
    created_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'members' },
);
memberSchema.index({ org_id: 1, is_active: 1, created_at: -1, _id: -1 });
memberSchema.index({ org_id: 1, email: 1 }, { unique: true });

export type MemberRepository = ReturnType<typeof createMemberRepository>;

export function createMemberRepository(db: Connection) {
  const Member = db.model<MemberDoc>('Member', memberSchema);
  const toRecord = ({ _id, ...rest }: MemberDoc): MemberRecord => ({ id: _id, ...rest });
  return {
    async insert(record: MemberRecord): Promise<void> {
      const { id, ...rest } = record;
      await Member.create({ _id: id, ...rest });
    },
    async getActive(orgId: string, id: string): Promise<MemberRecord | null> {
      const doc = await Member.findOne({ _id: id, org_id: orgId, is_active: true }).lean<MemberDoc>();
      return doc ? toRecord(doc) : null;
    },
    /** Members by id, active or not: names of past assignees still render. */
    async getMany(orgId: string, ids: string[]): Promise<Map<string, MemberRecord>> {
      if (ids.length === 0) return new Map();
      const docs = await Member.find({ org_id: orgId, _id: { $in: [...new Set(ids)] } }).lean<MemberDoc[]>();
      return new Map(docs.map((doc) => [doc._id, toRecord(doc)]));
    },
    async countActive(orgId: string): Promise<number> {
      return Member.countDocuments({ org_id: orgId, is_active: true });
    },
    async listActive(orgId: string, limit: number, after?: KeysetPosition): Promise<KeysetPage<MemberRecord>> {
      const { filter, sort } = keyset('created_at', 'desc', after && { ...after, value: new Date(String(after.value)) });
      const rows = await Member.find({ org_id: orgId, is_active: true, ...filter })
        .sort(sort)
        .limit(limit + 1)
        .lean<MemberDoc[]>();
      const page = toPage(rows, limit, (row) => row.created_at.toISOString());
      return { ...page, items: page.items.map(toRecord) };
    },
  };
}
