import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');

/**
 * Loads, in a fresh Node process, every module gateway/src/main.ts imports (without running main) and answers the
 * files Node loaded: the gateway's whole module graph as production loads it (CommonJS, through tsx).
 */
function gatewayModuleGraph(): string[] {
  const script = `
    require('tsx/cjs');
    const { readFileSync } = require('node:fs');
    const { join } = require('node:path');
    const dir = join(${JSON.stringify(root)}, 'gateway', 'src');
    const main = readFileSync(join(dir, 'main.ts'), 'utf8');
    for (const [, spec] of main.matchAll(/^import (?!type )[^;]*? from '([^']+)';/gm))
      require(spec.startsWith('.') ? join(dir, spec) : require.resolve(spec, { paths: [dir] }));
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));
    process.exit(0);
  `;
  const output = execFileSync(process.execPath, ['-e', script], {
    cwd: root,
    // Loading the instrumentation reads the gateway's configuration: the one variable without a default.
    env: { ...process.env, OTEL_SDK_DISABLED: 'true', SERVICE_TOKEN_SECRET: 'x'.repeat(32) },
  });
  return JSON.parse(output.toString('utf8')) as string[];
}

describe('the gateway stays lean', () => {
  // Compiling the whole graph through tsx takes seconds, more on a loaded machine: the unit tier's 10 s is no limit here.
  it('loads neither mongoose nor kafkajs (only the MongoDB driver, for its idempotency records)', { timeout: 120_000 }, () => {
    const loaded = gatewayModuleGraph();
    const packages = new Set(loaded.flatMap((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? []));
    // The graph was really loaded: the HTTP server, the gRPC clients and the driver are in it.
    expect([...packages]).toEqual(expect.arrayContaining(['fastify', '@grpc/grpc-js', 'mongodb']));
    expect(loaded.some((file) => file.endsWith('gateway/src/app.ts'))).toBe(true);
    expect(packages.has('mongoose')).toBe(false);
    expect(packages.has('kafkajs')).toBe(false);
  });
});
