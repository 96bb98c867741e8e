import { Schema, type Connection } from 'mongoose';

export interface ApiKeyRecord {
  id: string;
  org_id: string;
  name: string;
  /** SHA-256 hex of the full key; the key itself is never stored. */
  hash: string;
  prefix: string;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

interface ApiKeyDoc extends Omit<ApiKeyRecord, 'id'> {
  _id: string;
}

const apiKeySchema = new Schema<ApiKeyDoc>(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    hash: { type: String, required: true },
    prefix: { type: String, required: true },
    scopes: { type: [String], required: true },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, default: null },
    revoked_at: { type: Date, default: null },
    last_used_at: { type: Date, default: null },
  },
  { versionKey: false, collection: 'api_keys' },
);
apiKeySchema.index({ hash: 1 }, { unique: true });
apiKeySchema.index({ org_id: 1, created_at: -1 });

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;

export function createApiKeyRepository(db: Connection) {
  const ApiKey = db.model<ApiKeyDoc>('ApiKey', apiKeySchema);
  const toRecord = ({ _id, ...rest }: ApiKeyDoc): ApiKeyRecord => ({ id: _id, ...rest });
  return {
    async insert(record: ApiKeyRecord): Promise<void> {
      const { id, ...rest } = record;
      await ApiKey.create({ _id: id, ...rest });
    },
    async findByHash(hash: string): Promise<ApiKeyRecord | null> {
      const doc = await ApiKey.findOne({ hash }).lean<ApiKeyDoc>();
      return doc ? toRecord(doc) : null;
    },
    async getById(orgId: string, id: string): Promise<ApiKeyRecord | null> {
      const doc = await ApiKey.findOne({ _id: id, org_id: orgId }).lean<ApiKeyDoc>();
      return doc ? toRecord(doc) : null;
    },
    async listByOrg(orgId: string): Promise<ApiKeyRecord[]> {
      const docs = await ApiKey.find({ org_id: orgId }).sort({ created_at: -1 }).lean<ApiKeyDoc[]>();
      return docs.map(toRecord);
    },
    async countActive(orgId: string): Promise<number> {
      return ApiKey.countDocuments({ org_id: orgId, revoked_at: null });
    },
    /** Returns false when the key does not exist in the organization or was already revoked. */
    async revoke(orgId: string, id: string, at: Date): Promise<boolean> {
      const result = await ApiKey.updateOne({ _id: id, org_id: orgId, revoked_at: null }, { $set: { revoked_at: at } });
      return result.modifiedCount === 1;
    },
    async touch(id: string, at: Date): Promise<void> {
      await ApiKey.updateOne({ _id: id }, { $set: { last_used_at: at } });
    },
  };
}
