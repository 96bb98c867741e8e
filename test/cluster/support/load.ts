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

/** Every acknowledged contact reads back, and its contact.created webhook reached the in-cluster receiver. */
export async function expectNothingLost(key: string, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 8) {
    const answers = await Promise.all(ids.slice(i, i + 8).map((id) => call('GET', `/v1/contacts/${id}`, { key })));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  }
  await waitForEvents('contact.created', ids);
}
