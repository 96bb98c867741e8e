import { expect } from 'vitest';
import { call } from './api';
import { waitForEvents } from './smoke-namespace';

export interface WriteLoad {
  /** Contacts the API acknowledged (201), by id. */
  acknowledged: string[];
  /** Every other outcome: a status and code, or the transport error. */
  failures: string[];
  stop: () => Promise<void>;
}

/**
 * A steady write load: `workers` loops, each creating one contact every `intervalMs` (when the answer comes sooner),
 * so the rate stays the same whatever the deployment does — about 20 per second by default, well under the
 * gateway's rate limits.
 */
export function startWriteLoad(key: string, label: string, workers = 4, intervalMs = 200): WriteLoad {
  let stopping = false;
  const acknowledged: string[] = [];
  const failures: string[] = [];
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let i = 0; !stopping; i++) {
      const started = Date.now();
      try {
        const answer = await call('POST', '/v1/contacts', { key, body: { name: `${label} ${worker}-${i}` } });
        if (answer.status === 201) acknowledged.push(answer.body.data.id as string);
        else failures.push(`${answer.status} ${answer.body?.error?.code ?? JSON.stringify(answer.body)}`);
      } catch (error) {
        failures.push((error as Error).message);
      }
      await new Promise((wake) => setTimeout(wake, Math.max(0, intervalMs - (Date.now() - started))));
    }
  });
  return {
    acknowledged,
    failures,
    stop: async () => {
      stopping = true;
      await Promise.all(loops);
    },
  };
}

/**
 * Every acknowledged contact reads back (the organization's contacts listed page by page: one request per hundred,
 * within the gateway's rate limit), and its contact.created webhook reached the in-cluster receiver.
 */
export async function expectNothingLost(key: string, ids: string[]): Promise<void> {
  const stored = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await call('GET', `/v1/contacts?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    expect(page.status).toBe(200);
    for (const contact of page.body.data as { id: string }[]) stored.add(contact.id);
    cursor = page.body.meta.next_cursor;
  } while (cursor);
  expect(ids.filter((id) => !stored.has(id))).toEqual([]);
  await waitForEvents('contact.created', ids);
}
