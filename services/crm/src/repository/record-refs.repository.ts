import { routedFilter, type Storage } from '@crm/shared';

export type RecordRefsRepository = ReturnType<typeof createRecordRefsRepository>;

type RefCollection = 'contacts' | 'deals' | 'companies';

/**
 * Existence checks and display names of the records that notes and tasks point to, read raw from their
 * collections (deals belong to another module). Names are read whether or not the record was deleted since, so
 * a task keeps showing what it was about; existence checks see live records only.
 */
export function createRecordRefsRepository({ connection: db }: Storage) {
  const collection = (name: RefCollection) => db.collection(name);

  async function labels(name: RefCollection, field: 'name' | 'title', orgId: string, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await collection(name)
      .find(routedFilter(db, name, { _id: { $in: [...new Set(ids)] } as never, org_id: orgId }), { projection: { [field]: 1 } })
      .toArray();
    return new Map(rows.map((row) => [String(row._id), String(row[field] ?? '')]));
  }

  return {
    async exists(name: RefCollection, orgId: string, id: string): Promise<boolean> {
      // merging_into: a contact claimed by a merge in progress counts as merged already (other records lack the field).
      const filter = routedFilter(db, name, { _id: id as never, org_id: orgId, deleted_at: null, merging_into: null });
      return (await collection(name).countDocuments(filter, { limit: 1 })) === 1;
    },
    contactNames: (orgId: string, ids: string[]) => labels('contacts', 'name', orgId, ids),
    companyNames: (orgId: string, ids: string[]) => labels('companies', 'name', orgId, ids),
    dealTitles: (orgId: string, ids: string[]) => labels('deals', 'title', orgId, ids),
  };
}
