// Invariants of deploy/docker/Dockerfile that hadolint does not check, asserted without a Docker engine (run by
// deploy/check-images.sh): every deployable has its target and a HEALTHCHECK; the runtime runs as a numeric
// non-root user under tini, holds no dev tools and no sources; base images are pinned by tag; the install stages
// copy every workspace manifest; the entry points the recipe names exist in the sources.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../..');
const dockerfile = readFileSync(join(root, 'deploy/docker/Dockerfile'), 'utf8');
const entrypoint = readFileSync(join(root, 'deploy/docker/entrypoint.sh'), 'utf8');
const dockerignore = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
const DEPLOYABLES = ['gateway', 'crm', 'webhooks', 'messaging', 'agents'];

// Instructions (continuation lines joined, comments dropped), grouped by stage.
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'))
  .map((line) => {
    const [, keyword = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    return { keyword: keyword.toUpperCase(), rest };
  });
const globalArgs = new Map();
const stages = [];
for (const instruction of instructions) {
  if (instruction.keyword === 'FROM') {
    const [, image = '', name = ''] = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.rest) ?? [];
    stages.push({ name, image, body: [] });
  } else if (stages.length === 0 && instruction.keyword === 'ARG') {
    const [name, value = ''] = instruction.rest.split('=');
    globalArgs.set(name, value);
  } else stages.at(-1)?.body.push(instruction);
}
const stage = (name) => stages.find((s) => s.name === name);
const errors = [];
const check = (ok, message) => ok || errors.push(message);
const parent = (s) => stage(s.image);
/** The stage and its ancestors within this file, nearest first. */
const lineage = (s) => (s ? [s, ...lineage(parent(s))] : []);
const last = (s, keyword) => lineage(s).flatMap((x) => x.body.filter((i) => i.keyword === keyword).reverse())[0];

// Base images: pinned by an explicit version tag (a digest may follow), never `latest` or a bare name.
for (const s of stages.filter((x) => !stage(x.image))) {
  const image = s.image.replace(/^\$\{?(\w+)\}?$/, (_, arg) => globalArgs.get(arg) ?? '');
  check(
    /^[\w./-]+:(?!latest\b)[\w.-]*\d+\.\d+\.\d+[\w.-]*(@sha256:[0-9a-f]{64})?$/.test(image),
    `FROM ${s.image}: base image not pinned by a version tag (${image})`,
  );
}

const runtime = stage('runtime');
check(runtime, 'no runtime stage');
const targets = [...DEPLOYABLES, 'platform'];
check(stages.at(-1)?.name === 'platform', 'the last stage (the default target) must be platform, the chart image');
for (const name of targets) {
  const s = stage(name);
  if (!check(s, `no target ${name}`)) continue;
  check(lineage(s).includes(runtime), `${name}: not built on the runtime stage`);
  const healthcheck = s.body.find((i) => i.keyword === 'HEALTHCHECK');
  check(healthcheck && /\bCMD\b/.test(healthcheck.rest) && !/\bNONE\b/.test(healthcheck.rest), `${name}: no HEALTHCHECK CMD of its own`);
  if (healthcheck) {
    const script = /"(\/app\/dist\/[^"]+\.js)"/.exec(healthcheck.rest)?.[1];
    const source = script && join(root, script.replace(/^\/app\/dist\//, '').replace(/\.js$/, '.ts'));
    check(source && existsSync(source), `${name}: HEALTHCHECK runs ${script}, which no source compiles to`);
    if (DEPLOYABLES.includes(name)) check(healthcheck.rest.includes(`"${name}"`), `${name}: HEALTHCHECK must check ${name}`);
  }
  if (DEPLOYABLES.includes(name))
    check(
      s.body.some((i) => i.keyword === 'ENV' && i.rest.includes(`SERVICE=${name}`)),
      `${name}: ENV SERVICE=${name} missing`,
    );
  // The user and the entry point, as the target ends up with them.
  const user = last(s, 'USER')?.rest ?? '';
  check(/^[1-9]\d*(:[1-9]\d*)?$/.test(user), `${name}: USER must be a numeric non-root uid[:gid], got '${user}'`);
  const entry = last(s, 'ENTRYPOINT')?.rest ?? '';
  check(/^\[\s*"\/usr\/bin\/tini"\s*,\s*"--"\s*,/.test(entry), `${name}: ENTRYPOINT must be exec-form tini -- ..., got ${entry}`);
  for (const x of lineage(s).slice(0, lineage(s).indexOf(runtime) + 1)) {
    for (const i of x.body) {
      check(!['ADD'].includes(i.keyword), `${x.name}: ADD in a runtime stage`);
      if (i.keyword === 'RUN') {
        // Only the removal of npm and friends may name them.
        const run = i.rest.replace(/rm -rf[^&;]*/g, '');
        check(
          !/\b(npm|npx|yarn|pnpm|corepack|tsx|tsc|gcc|make|git|curl|wget)\b/.test(run),
          `${x.name}: dev tool in a runtime RUN: ${i.rest}`,
        );
      }
      if (i.keyword === 'COPY') {
        check(
          /^--from=(deps|build)\b/.test(i.rest) || /entrypoint\.sh/.test(i.rest),
          `${x.name}: runtime copies from the context: ${i.rest}`,
        );
        if (/^--from=build\b/.test(i.rest)) check(/\/app\/dist\s/.test(i.rest), `${x.name}: only dist/ may come from the build stage`);
      }
    }
  }
}
const runtimeRun =
  runtime?.body
    .filter((i) => i.keyword === 'RUN')
    .map((i) => i.rest)
    .join(' ') ?? '';
check(/apt-get install[^&]*\btini\b/.test(runtimeRun), 'runtime: tini is not installed');
check(/rm -rf[^&]*\/usr\/local\/lib\/node_modules/.test(runtimeRun), 'runtime: npm (/usr/local/lib/node_modules) is not removed');
check(
  stage('deps')?.body.some((i) => i.keyword === 'RUN' && /npm ci\b[^&]*--omit=dev/.test(i.rest)),
  'deps: npm ci --omit=dev missing',
);

// Every workspace's manifest is in the install stages (else `npm ci` with the lockfile fails).
const manifests =
  stage('manifests')
    ?.body.filter((i) => i.keyword === 'COPY')
    .map((i) => i.rest) ?? [];
const workspaces = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces;
for (const ws of workspaces)
  check(
    manifests.some((c) => c.startsWith(`${ws}/package.json `)),
    `manifests: ${ws}/package.json is not copied`,
  );

// The entry points: every dist path the entrypoint or the build check names has a source.
for (const [, path] of entrypoint.matchAll(/entry=dist\/(\S+)\.js/g))
  check(existsSync(join(root, `${path}.ts`)), `entrypoint.sh: ${path}.ts does not exist`);
check(/exec node "\$entry"/.test(entrypoint), 'entrypoint.sh must exec node (so tini signals node itself)');
for (const pattern of ['**/node_modules', 'dist', '.git']) check(dockerignore.includes(pattern), `.dockerignore must exclude ${pattern}`);

if (errors.length) {
  console.error(errors.map((e) => `FAIL: ${e}`).join('\n'));
  process.exit(1);
}
console.log(`Dockerfile invariants OK: ${stages.length} stages, targets ${targets.join(', ')}`);
