import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDemo } from '@crm/dev-tools/demo';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import { crmAdmin } from '../support/orgs';
import { testSystem } from '../support/system';

/**
 * /api/docs in a real headless browser: Debian's chromium (deploy/chromium.sh installs it once) driven by
 * playwright-core. The reference renders from the served document without a console error or a request to another
 * host, finds operations by search, and sends an operation's request example with the demo key.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe('the API reference at /api/docs, in a browser', () => {
  const { baseUrl } = testSystem();
  const userDataDir = mkdtempSync(join(tmpdir(), 'crm-chromium-'));
  let context: BrowserContext;
  let page: Page;
  let demoKey: string;
  const problems: string[] = [];

  beforeAll(async () => {
    const executablePath = execFileSync('bash', ['deploy/chromium.sh'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    // The demo organization npm start makes (tools/dev), and its key.
    demoKey = (await seedDemo(await crmAdmin(), { name: 'Docs demo' })).api_key;
    context = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: FLAGS });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => {
      if (!request.url().startsWith(baseUrl) && !request.url().startsWith('data:'))
        problems.push(`request to another host: ${request.url()}`);
    });
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    rmSync(userDataDir, { recursive: true, force: true });
  });

  /** Opens the search (its button in the sidebar), types `text`, and answers the dialog of results. */
  async function search(text: string) {
    await page
      .getByRole('button', { name: /Search/ })
      .first()
      .click();
    await page.keyboard.type(text);
    return page.getByRole('dialog');
  }

  it('loads from this gateway alone, under a Content-Security-Policy, without a console error', { timeout: 90_000 }, async () => {
    const response = await page.goto(`${baseUrl}/api/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.getByText('Create a contact').first().waitFor({ timeout: 60_000 });
    expect(problems).toEqual([]);
  });

  it('finds the broadcast operations by searching "broadcast"', { timeout: 60_000 }, async () => {
    const results = await search('broadcast');
    await results.getByText('Create a broadcast').waitFor();
    const text = await results.innerText();
    for (const operation of ['Create a broadcast', 'Launch a broadcast', 'List broadcasts', 'Pause a broadcast'])
      expect(text).toContain(operation);
    await page.keyboard.press('Escape');
    expect(problems).toEqual([]);
  });

  it('shows the payload of a webhook event, with its signature headers', { timeout: 60_000 }, async () => {
    await (await search('contact.created')).getByText('contact.created').first().click();
    const section = page.locator('[id$="tag/webhook-events/webhook/POST/contact.created"]');
    await section.waitFor();
    await expect.poll(() => section.innerText()).toContain('"type": "contact.created"');
    expect(await section.innerText()).toContain('X-Webhook-Signature');
    expect(problems).toEqual([]);
  });

  it("sends an operation's request example with the demo key from the page", { timeout: 90_000 }, async () => {
    await (await search('Create a funnel')).getByText('Create a funnel').first().click();
    const section = page.locator('[id$="tag/funnels/POST/v1/funnels"]');
    await section.waitFor();
    await section.getByRole('button', { name: /Test Request/ }).click();
    // The client's own Bearer field (the one of the page behind it is covered).
    await page.getByPlaceholder('Token').last().fill(demoKey);
    const sent = page.waitForResponse((response) => response.url() === `${baseUrl}/v1/funnels` && response.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send' }).first().click();
    const response = await sent;
    expect(response.request().headers().authorization).toBe(`Bearer ${demoKey}`);
    expect(response.status()).toBe(201);
    const created = ((await response.json()) as { data: { id: string; name: string } }).data;
    // The example was stored in the demo organization.
    const read = await fetch(`${baseUrl}/v1/funnels/${created.id}`, { headers: { authorization: `Bearer ${demoKey}` } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { data: { name: string } }).data.name).toBe(created.name);
    expect(problems).toEqual([]);
  });
});
