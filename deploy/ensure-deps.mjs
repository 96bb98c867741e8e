// Runs before `npm start`, `npm test` and `npm run bench` (their pre-scripts): on a fresh clone, or after the
// lockfile changed, installs the exact dependency tree with `npm ci`, so the README's commands need no step by
// hand. Plain Node and no dependency of its own: it runs before anything is installed.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const lockfile = resolve(root, 'package-lock.json');
// npm writes this file at the end of every install: its age tells whether node_modules matches the lockfile.
const installed = resolve(root, 'node_modules/.package-lock.json');

const upToDate = existsSync(installed) && statSync(installed).mtimeMs >= statSync(lockfile).mtimeMs;
if (!upToDate) {
  console.log(
    existsSync(installed) ? 'package-lock.json changed: reinstalling dependencies (npm ci)…' : 'Installing dependencies (npm ci, once)…',
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const startedAt = Date.now();
  execFileSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  // npm start counts this step in the total its banner prints.
  const seconds = (Date.now() - startedAt) / 1000;
  mkdirSync(resolve(root, '.local/run'), { recursive: true });
  writeFileSync(resolve(root, '.local/run/install.json'), JSON.stringify({ seconds, at: Date.now() }));
  console.log(`Dependencies installed in ${seconds.toFixed(1)} s.`);
}
