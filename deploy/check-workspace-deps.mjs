// Part of `npm run check`: every package a workspace's code imports must be declared in that workspace's
// package.json, so no workspace works only because npm hoisted another workspace's dependency to the root.
// Scans `import … from 'x'`, `export … from 'x'`, `import 'x'`, `import('x')` and `require('x')` in the
// workspace's sources (relative paths and Node builtins excluded) and exits 1 listing every undeclared one.
// The root devDependencies (vitest, autocannon, …) count as declared only for test code: `*.test.ts` files and
// the `test` workspace. The other way round, a package in a workspace's "dependencies" that none of its files
// imports is an unused dependency (it would ship in the images for nothing). And every dependency must be installed in
// the root node_modules: the compiled processes run from dist/, which sees that one only, not a copy npm nested in a
// workspace's own node_modules (`npm dedupe` hoists it). Plain Node and no dependency of its own.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const readManifest = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const rootManifest = readManifest(root);
const rootDevDependencies = new Set(Object.keys(rootManifest.devDependencies ?? {}));

const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist']);
const TEST_FILE = /\.(?:test|spec)\.[cm]?[jt]s$/;
// `import … from 'x'` / `export … from 'x'` (the `[^'";]*?` spans a multi-line `{ a, b }` list), `import 'x'`,
// and the calls `import('x')` / `require('x')`.
const FROM = /^[ \t]*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"\n]+)['"]/gm;
const BARE = /^[ \t]*import\s*['"]([^'"\n]+)['"]/gm;
const CALLS = /\b(?:require|import)\(\s*['"]([^'"\n]+)['"]\s*\)/g;

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (SOURCE.test(entry.name)) yield path;
  }
}

/** The text with comment lines blanked, so documentation that quotes an import is not taken for one. */
function withoutComments(text) {
  let inBlock = false;
  return text
    .split('\n')
    .map((line) => {
      const trimmed = line.trim();
      if (inBlock) {
        if (trimmed.includes('*/')) inBlock = false;
        return '';
      }
      if (trimmed.startsWith('/*')) {
        inBlock = !trimmed.includes('*/');
        return '';
      }
      return trimmed.startsWith('//') ? '' : line;
    })
    .join('\n');
}

function packageName(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return null;
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0])) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function importedPackages(file) {
  const text = withoutComments(readFileSync(file, 'utf8'));
  const names = new Set();
  for (const pattern of [FROM, BARE, CALLS]) {
    for (const match of text.matchAll(pattern)) {
      const name = packageName(match[1]);
      if (name) names.add(name);
    }
  }
  return names;
}

let failures = 0;
for (const workspace of rootManifest.workspaces) {
  const dir = join(root, workspace);
  const manifest = readManifest(dir);
  const declared = new Set([
    manifest.name,
    ...['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].flatMap((field) =>
      Object.keys(manifest[field] ?? {}),
    ),
  ]);
  const undeclared = new Map(); // package -> files importing it
  const imported = new Set();
  for (const file of sourceFiles(dir)) {
    const isTestCode = workspace === 'test' || TEST_FILE.test(file);
    for (const name of importedPackages(file)) {
      imported.add(name);
      if (declared.has(name) || (isTestCode && rootDevDependencies.has(name))) continue;
      const files = undeclared.get(name) ?? [];
      files.push(relative(root, file));
      undeclared.set(name, files);
    }
  }
  const unused = Object.keys(manifest.dependencies ?? {}).filter((name) => !imported.has(name));
  const unreachable = Object.keys(manifest.dependencies ?? {}).filter((name) => !existsSync(join(root, 'node_modules', name)));
  if (unreachable.length > 0) {
    failures += unreachable.length;
    console.error(`${workspace}: not in the root node_modules, so not loadable from dist/: ${unreachable.join(', ')} (run npm dedupe)`);
  }
  if (unused.length > 0) {
    failures += unused.length;
    console.error(`${workspace}/package.json declares dependencies none of its files imports: ${unused.join(', ')}`);
  }
  if (undeclared.size === 0) continue;
  failures += undeclared.size;
  console.error(`${workspace}/package.json does not declare:`);
  for (const [name, files] of [...undeclared].sort(([a], [b]) => a.localeCompare(b))) {
    const more = files.length > 1 ? ` and ${files.length - 1} more` : '';
    console.error(`  ${name} (imported by ${files[0]}${more})`);
  }
}

if (failures > 0) {
  console.error(
    `\n${failures} problem(s): add each undeclared import to the workspace's "dependencies", with the version range the lockfile already has; remove each unused one (npm uninstall -w <workspace> <package>).`,
  );
  process.exit(1);
}
console.log(
  `Workspace dependencies: every import is declared and every dependency imported (${rootManifest.workspaces.length} workspaces).`,
);
