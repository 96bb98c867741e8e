import type { mongo } from 'mongoose';
import { idFirst } from '../../services/shared/src/mongo/filter-routing';
import { percentile, round } from './stats';

/**
 * The driver-level probe: the query shapes behind the contact list, timed straight through the mongodb driver on
 * the benchmark's own data, without gateway, gRPC or service. It shows what the store costs: a page of 25 by an
 * index bounded only by the organization (what MongoDB's scan stops early on, and the local store reads whole)
 * against the same page bounded to a window of the sort key, and the old unanchored regular-expression search
 * against one equality on the search keys. And two lookups of one contact: by id with the organization written
 * before the id and after it (the store reads a filter through the first of its fields that leads an index:
 * filter-routing.ts) and as the storage kit sends it (`_id` alone at the top: no trial between plans), and the live
 * contact holding a phone (a new chat sender's lookup, through its index).
 */
export interface ProbeFigures {
  plain_page_ms: number;
  windowed_page_ms: number;
  regex_search_ms: number | null;
  keyed_search_ms: number;
  by_id_org_first_ms: number;
  by_id_id_first_ms: number;
  by_id_as_sent_ms: number;
  by_phone_ms: number;
}

const PAGE = 26;

async function median(runs: number, query: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await query();
    times.push(performance.now() - started);
  }
  return round(
    percentile(
      times.sort((a, b) => a - b),
      50,
    ),
  );
}

/** `regexRuns` 0 skips the regex search (seconds per run past 50,000 contacts). */
export async function probeStore(db: mongo.Db, orgId: string, term: string, regexRuns: number): Promise<ProbeFigures> {
  const contacts = db.collection('contacts');
  const live = { org_id: orgId, deleted_at: null };
  const sort = { created_at: -1, _id: -1 } as const;
  const edge = await contacts
    .find(live)
    .sort(sort)
    .skip(PAGE * 2)
    .limit(1)
    .next();
  const since = edge?.created_at as Date | undefined;
  const pattern = new RegExp(term, 'i');
  return {
    plain_page_ms: await median(7, () => contacts.find(live).sort(sort).limit(PAGE).toArray()),
    windowed_page_ms: await median(7, () =>
      contacts
        .find({ ...live, created_at: { $gte: since } })
        .sort(sort)
        .limit(PAGE)
        .toArray(),
    ),
    regex_search_ms:
      regexRuns > 0
        ? await median(regexRuns, () =>
            contacts
              .find({ ...live, $or: [{ name: pattern }, { email: pattern }, { phone: pattern }] })
              .sort(sort)
              .limit(PAGE)
              .toArray(),
          )
        : null,
    keyed_search_ms: await median(7, () =>
      contacts
        .find({ ...live, search_keys: term })
        .sort(sort)
        .limit(PAGE)
        .toArray(),
    ),
    by_id_org_first_ms: await median(7, () => contacts.findOne({ ...live, _id: edge?._id })),
    by_id_id_first_ms: await median(7, () => contacts.findOne({ _id: edge?._id, ...live })),
    by_id_as_sent_ms: await median(7, () => contacts.findOne(idFirst({ _id: edge?._id, ...live }))),
    by_phone_ms: await median(7, () => contacts.findOne({ ...live, phone: edge?.phone }, { sort: { created_at: 1 } })),
  };
}
