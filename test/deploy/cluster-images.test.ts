import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const CLUSTER_SCRIPT = resolve(__dirname, '../../deploy/cluster/cluster.sh');

/**
 * A podman (and buildah) that logs each call and fails `podman build` as a broken Dockerfile does; every other
 * call succeeds, with an image id for `image inspect`.
 */
const FAKE_PODMAN = `#!/usr/bin/env bash
echo "$(basename "$0") $*" >> "$FAKE_LOG"
case "$1 $2" in
  "build "*) echo "STEP 5/9: RUN npm ci --omit=dev: exit status 1" >&2; exit 1 ;;
  "image inspect") echo "sha256:0123456789abcdef0123"; exit 0 ;;
esac
exit 0
`;

describe('cluster:up images phase', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cluster-images-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops with the build error when the platform image does not build, and tags no image', () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    for (const tool of ['podman', 'buildah']) {
      writeFileSync(join(bin, tool), FAKE_PODMAN);
      chmodSync(join(bin, tool), 0o755);
    }
    const state = join(dir, 'state');
    const calls = join(dir, 'calls.log');
    writeFileSync(calls, '');
    const run = spawnSync('bash', [CLUSTER_SCRIPT, 'up', 'images'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        FAKE_LOG: calls,
        CRM_STACK_CACHE: join(dir, 'cache'),
        CRM_CLUSTER_DIR: state,
      },
    });

    expect(run.status, run.stdout + run.stderr).not.toBe(0);
    expect(run.stdout + run.stderr).toContain('images');
    expect(run.stdout + run.stderr).toContain('FAILED');
    expect(readFileSync(join(state, 'logs/images.log'), 'utf8')).toContain('exit status 1');
    const podmanCalls = readFileSync(calls, 'utf8').trim().split('\n');
    expect(podmanCalls[0]).toMatch(/^podman build /);
    // Nothing after the failed build: no tag of a stale image, no archive for the node to load.
    expect(podmanCalls).toHaveLength(1);
    expect(existsSync(join(state, 'app-image-tag'))).toBe(false);
  });
});
