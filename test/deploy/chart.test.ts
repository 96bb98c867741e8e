import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../..');
const rendered = mkdtempSync(join(tmpdir(), 'crm-rendered-'));
afterAll(() => rmSync(rendered, { recursive: true, force: true }));

/**
 * The whole offline validation in its one entry point: helm lint --strict and helm template of every values file,
 * the structural checks, the security policy, the operators' resources, kubernetes-validate --strict, hadolint and
 * the Dockerfile's invariants. On a clean machine it first builds helm and installs the Python tools.
 */
describe('deploy/validate-chart.sh', () => {
  let output = '';
  it('passes', async () => {
    // At the lowest CPU priority: it runs beside the e2e project, whose services must not starve (on a clean
    // machine this builds helm with Go for minutes).
    const result = await run('nice', ['-n', '19', 'bash', join(ROOT, 'deploy/validate-chart.sh')], {
      cwd: ROOT,
      env: { ...process.env, KEEP_RENDERED: rendered },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
    });
    output = `${result.stdout}\n${result.stderr}`;
    expect(output).toContain('chart OK');
    expect(output).toContain('hadolint: no findings');
    expect(output).toContain('images OK');
  });

  it('renders the default, external and HA installs and checks every one', () => {
    for (const file of ['default', 'external', 'ha', 'external-ha'])
      expect(output).toMatch(new RegExp(`${file}\\.yaml: policy OK \\(\\d+ objects`));
    expect(output).toMatch(/kubernetes-validate --strict against Kubernetes 1\.27/);
  });

  it('gives every Deployment of the HA install three replicas or more through its HPA', () => {
    const ha = readFileSync(join(rendered, 'ha.yaml'), 'utf8');
    const minReplicas = [...ha.matchAll(/minReplicas: (\d+)/g)].map((m) => Number(m[1]));
    expect(minReplicas).toHaveLength(5);
    expect(Math.min(...minReplicas)).toBeGreaterThanOrEqual(3);
  });
});
