import { createCrmClient, type CrmClient } from '@crm/client';
import { sendChatText, uniquePhone } from '../../support/messaging';
import { testSystem } from '../../support/system';

/** A write the API acknowledged with 2xx: what must be readable afterwards and which events it must have raised. */
export interface AckedWrite {
  what: 'contact' | 'deal' | 'contact-update' | 'message' | 'broadcast';
  id: string;
  /** The event kinds this write must raise, each with data.object.id === id. */
  events: string[];
  /** For an update: the name it set, which a later read must show. */
  name?: string;
  startedAt: number;
  endedAt: number;
}

/** A request that was not acknowledged: a 5xx or other non-2xx answer, a timeout or a refused connection. */
export interface FailedRequest {
  what: string;
  outcome: string;
  at: number;
}

export interface Load {
  acked: AckedWrite[];
  failed: FailedRequest[];
  /** Stops the workers after their current request; resolves when all have. */
  stop(): Promise<void>;
}

const REQUEST_TIMEOUT_MS = 10_000;

/** The typed client through the load balancer, with a timeout per request: a hung request counts as failed. */
export function loadClient(key: string): CrmClient {
  return createCrmClient({
    baseUrl: testSystem().baseUrl,
    apiKey: key,
    fetch: (request: Request) => fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
  });
}

/**
 * Steady load of writes that raise events, from `workers` loops: create a contact, open a deal on it, rename it,
 * send it a chat message. A step whose prerequisite failed is skipped (not counted).
 */
export function startLoad(client: CrmClient, instanceId: string, options: { workers: number; pauseMs: number }): Load {
  const load: Load = { acked: [], failed: [], stop: async () => undefined };
  let running = true;
  let sequence = 0;

  /** Runs one request; records it as acknowledged (returns its id) or failed (returns undefined). */
  async function attempt(
    what: AckedWrite['what'],
    events: string[],
    call: () => Promise<{ response: Response; data?: { data: { id: string } }; error?: unknown }>,
    name?: string,
  ): Promise<string | undefined> {
    const startedAt = Date.now();
    try {
      const { response, data, error } = await call();
      if (response.ok && data) {
        load.acked.push({ what, id: data.data.id, events, name, startedAt, endedAt: Date.now() });
        return data.data.id;
      }
      const code = (error as { error?: { code?: string } } | undefined)?.error?.code;
      load.failed.push({ what, outcome: `http ${response.status}${code ? ` ${code}` : ''}`, at: startedAt });
    } catch (error) {
      load.failed.push({ what, outcome: (error as Error).name === 'TimeoutError' ? 'timeout' : 'network error', at: startedAt });
    }
    return undefined;
  }

  async function worker(): Promise<void> {
    while (running) {
      const n = sequence++;
      const contactId = await attempt('contact', ['contact.created'], () =>
        client.POST('/v1/contacts', { body: { name: `Chaos ${n}`, phone: uniquePhone(), tags: n < 5 ? ['chaos', 'bcast'] : ['chaos'] } }),
      );
      if (contactId) {
        await attempt('deal', ['deal.created'], () => client.POST('/v1/deals', { body: { title: `Deal ${n}`, contact_ids: [contactId] } }));
        const name = `Chaos ${n} renamed`;
        await attempt(
          'contact-update',
          ['contact.updated'],
          () => client.PATCH('/v1/contacts/{id}', { params: { path: { id: contactId } }, body: { name } }),
          name,
        );
        await attempt('message', ['message.sent'], () => sendChatText(client, contactId, instanceId, `hello ${n}`));
      }
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    }
  }

  const workers = Array.from({ length: options.workers }, () => worker());
  load.stop = async () => {
    running = false;
    await Promise.all(workers);
  };
  return load;
}
