import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledEntry } from '../../deploy/lib/processes';
import { startExtraGateway, type ExtraGateway } from '../support/extra-gateway';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { testSystem } from '../support/system';

/**
 * Behind a round-robin balancer each page of a list may come from another gateway: every replica signs cursors with
 * the key the platform shares (CURSOR_SECRET, deploy/lib/secrets.ts), so a cursor one issued the next accepts.
 */
describe('cursors across gateway replicas', () => {
  let org: TestOrg;
  let second: ExtraGateway;
  const names: string[] = [];

  beforeAll(async () => {
    org = await createTestOrg();
    second = await startExtraGateway('gateway-second', {});
    for (let index = 0; index < 7; index++) {
      const name = `Paged ${index}`;
      const created = await org.client.POST('/v1/contacts', { body: { name } });
      expect(created.response.status).toBe(201);
      names.push(name);
    }
  }, 90_000);
  afterAll(() => second?.stop());

  it('pages through a list taking each page from the other gateway, every record once', async () => {
    const gateways = [testSystem().baseUrl, second.baseUrl];
    const seen: string[] = [];
    let cursor: string | undefined;
    let page = 0;
    do {
      const url = new URL('/v1/contacts', gateways[page % 2]);
      url.searchParams.set('limit', '2');
      if (cursor) url.searchParams.set('cursor', cursor);
      const response = await fetch(url, { headers: { authorization: `Bearer ${org.key}` } });
      expect(response.status, `page ${page + 1} from ${url.origin}`).toBe(200);
      const body = (await response.json()) as { data: Array<{ name: string }>; meta: { next_cursor?: string } };
      seen.push(...body.data.map((contact) => contact.name));
      cursor = body.meta.next_cursor;
      page++;
    } while (cursor);
    expect(page).toBe(4);
    expect(seen.sort()).toEqual([...names].sort());
  });

  it('refuses to start a gateway in production mode without CURSOR_SECRET, with a one-line reason', async () => {
    const { CURSOR_SECRET: _shared, ...env } = testSystem().env;
    const child = spawn(process.execPath, [compiledEntry('gateway/src/main.ts')], {
      env: { ...process.env, ...env, NODE_ENV: 'production', PORT: '0', METRICS_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^gateway: Invalid configuration: CURSOR_SECRET: is required with NODE_ENV=production/);
  });
});
