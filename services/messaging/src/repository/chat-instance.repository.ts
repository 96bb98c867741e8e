import { type OutboxEntry, type PageRequest, RevisionedRecords, type Storage, type StoreFilter, TtlCache } from '@crm/shared';
import type { InstanceKind } from '@crm/shared/schemas';
import { Schema } from 'mongoose';

export type InstanceStatus = 'connected' | 'connecting' | 'disconnected';

/** A number (qrcode, official) or a page (photoapp, socialmsg) connected at a provider. */
export interface ChatInstanceRecord {
  id: string;
  org_id: string;
  name: string;
  kind: InstanceKind;
  /** The provider's handle: phone-number id (official), bridge instance (qrcode), page id (photoapp, socialmsg). */
  provider_ref: string;
  phone_number: string | null;
  status: InstanceStatus;
  is_default: boolean;
  warmup: { active: boolean; daily_limit: number | null };
  /** The last QR code the bridge asked to scan (QR-code numbers), until the phone is paired again. */
  qr_code?: string | null;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    kind: { type: String, required: true },
    provider_ref: { type: String, required: true },
    phone_number: { type: String, default: null },
    status: { type: String, required: true },
    is_default: { type: Boolean, default: false },
    warmup: { type: Object, default: () => ({ active: false, daily_limit: null }) },
    qr_code: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'chat_instances', minimize: false },
);
schema.index({ org_id: 1, created_at: -1, _id: -1 });
// Provider callbacks name the number by its provider handle; one handle belongs to one organization.
schema.index({ kind: 1, provider_ref: 1 }, { unique: true });

export interface ChatInstanceQuery extends PageRequest {
  kinds: InstanceKind[];
  status?: string | null;
}

export type ChatInstanceRepository = ReturnType<typeof createChatInstanceRepository>;

export function createChatInstanceRepository(storage: Storage) {
  const instances = new RevisionedRecords<ChatInstanceRecord>(storage, {
    model: 'ChatInstance',
    schema,
    what: 'chat instance',
    outbox: true,
  });
  const recentByRef = new TtlCache<ChatInstanceRecord | null>(1_000);

  return {
    collection: instances.collection,

    insert: (record: ChatInstanceRecord) => instances.insert(record),

    getById: (orgId: string, id: string) => instances.findOne({ _id: id, org_id: orgId }),

    getMany: (orgId: string, ids: string[]) =>
      ids.length === 0 ? Promise.resolve([]) : instances.findMany({ _id: { $in: [...new Set(ids)] }, org_id: orgId }),

    /** Callbacks carry only the provider handle; the instance tells the organization. */
    getByProviderRef: (kind: InstanceKind, providerRef: string) => instances.findOne({ kind, provider_ref: providerRef }),

    /**
     * The same for the callbacks that arrive by the dozen a second — delivery statuses and inbound messages — which
     * need the number's id, organization and kind (fixed for a handle) and its name (shown on a conversation it
     * opens: a rename shows there within a second): read at most once a second per number, not for each callback.
     * An unknown handle is not remembered (a number created just now is found at once).
     */
    async getByProviderRefRecent(kind: InstanceKind, providerRef: string) {
      const key = `${kind}:${providerRef}`;
      const found = await recentByRef.get(key, () => instances.findOne({ kind, provider_ref: providerRef }));
      if (!found) recentByRef.invalidate(key);
      return found;
    },

    findDefault: (orgId: string, kinds: InstanceKind[]) =>
      instances.findOne({ org_id: orgId, kind: { $in: kinds }, is_default: true }, { created_at: 1 }),

    /** The first page (photoapp, socialmsg) of the organization; the connected one first. */
    async findFirstOfKind(orgId: string, kind: InstanceKind) {
      const found = await instances.findMany({ org_id: orgId, kind }, { sort: { created_at: 1 }, limit: 20 });
      return found.find((candidate) => candidate.status === 'connected') ?? found[0] ?? null;
    },

    count: (orgId: string, kinds: InstanceKind[]) => instances.count({ org_id: orgId, kind: { $in: kinds } }),

    list(orgId: string, query: ChatInstanceQuery) {
      const conditions: StoreFilter[] = [{ org_id: orgId, kind: { $in: query.kinds } }];
      if (query.status) conditions.push({ status: query.status });
      return instances.listPage(conditions, { field: 'created_at', order: 'desc', type: 'date' }, query);
    },

    /** Makes one number the default of its organization's chatapp numbers. */
    async setDefault(orgId: string, id: string): Promise<void> {
      await instances.updateMany({ org_id: orgId, _id: { $ne: id }, is_default: true }, { is_default: false });
      await instances.updateMany({ org_id: orgId, _id: id }, { is_default: true });
    },

    /** A change computed from the number at revision `rev`, with its events; throws WriteConflict when it lost. */
    updateAtRevision: (orgId: string, id: string, rev: number, set: Partial<ChatInstanceRecord>, events: OutboxEntry[]) =>
      instances.updateAtRevision({ _id: id, org_id: orgId }, rev, set, { events }),
  };
}
