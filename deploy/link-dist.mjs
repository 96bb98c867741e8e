// Second half of `npm run build`, after `tsc -p tsconfig.build.json` has mirrored the repository under dist/.
//
// How compiled code finds compiled packages: the workspace packages keep pointing main/exports at their .ts
// sources (so tsx, vitest, tsc and eslint resolve the sources with no flag, condition or alias), and this script
// gives dist/ its own node_modules: dist/node_modules/@crm/<name> is a link to dist/<package dir>, whose
// package.json is the source one with every .ts target turned into .js. Node searches dist/node_modules before
// the root node_modules (where npm's workspace links lead to the sources), so `node dist/.../main.js` loads only
// compiled code, and nothing outside dist/ ever sees the compiled copies.
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');
// The packages other packages import; the services and the gateway are only ever started, never imported.
const packages = ['proto', 'services/shared', 'client'];

for (const dir of packages) {
  // Only what this build compiled: the image's build stage compiles the product alone (no client/, no tests).
  if (!existsSync(join(dist, dir))) continue;
  const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  const compiled = { name: manifest.name, version: manifest.version, private: true, main: manifest.main, exports: manifest.exports };
  const text = JSON.stringify(compiled, null, 2).replace(/\.ts"/g, '.js"');
  writeFileSync(join(dist, dir, 'package.json'), `${text}\n`);

  const link = join(dist, 'node_modules', manifest.name);
  const target = relative(dirname(link), join(dist, dir));
  if (readLink(link) === target) continue;
  mkdirSync(dirname(link), { recursive: true });
  rmSync(link, { force: true });
  symlinkSync(target, link, 'dir');
}

// Last, so the stamp means a complete build; deploy/lib/processes.ts compares source files with its mtime.
writeFileSync(join(dist, 'build.stamp'), `${new Date().toISOString()}\n`);

function readLink(path) {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
