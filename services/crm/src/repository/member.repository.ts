import { type PageRequest, RecordStore, type Storage } from '@crm/shared';
import { Schema } from 'mongoose';

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

const memberSchema = new Schema(
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

export function createMemberRepository(storage: Storage) {
  const members = new RecordStore<MemberRecord>(storage, { model: 'Member', schema: memberSchema, what: 'member' });
  const active = (orgId: string) => ({ org_id: orgId, is_active: true });
  return {
    insert: (record: MemberRecord) => members.insert(record),
    getActive: (orgId: string, id: string) => members.findOne({ _id: id, ...active(orgId) }),
    /** Members by id, active or not: names of past assignees still render. */
    async getMany(orgId: string, ids: string[]): Promise<Map<string, MemberRecord>> {
      if (ids.length === 0) return new Map();
      const found = await members.findMany({ org_id: orgId, _id: { $in: [...new Set(ids)] } });
      return new Map(found.map((member) => [member.id, member]));
    },
    countActive: (orgId: string) => members.count(active(orgId)),
    listActive: (orgId: string, page: PageRequest) =>
      members.listPage([active(orgId)], { field: 'created_at', order: 'desc', type: 'date' }, page),
  };
}
