import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const TOP = ['services', 'gateway', 'client', 'proto', 'deploy', 'helm', 'test', 'docs', 'bench-results', '.ci'];

/** The documents a reader of the repository opens: README, CONTRIBUTING, docs/ and every package's README. */
function documents(): string[] {
  const packages = ['services/crm', 'services/messaging', 'services/agents', 'services/webhooks', 'services/shared', 'client', 'helm/crm'];
  return [
    'README.md',
    'CONTRIBUTING.md',
    ...readdirSync(join(root, 'docs')).map((name) => `docs/${name}`),
    ...packages.map((dir) => `${dir}/README.md`),
    ...readdirSync(join(root, 'services/webhooks/src/delivery'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `services/webhooks/src/delivery/${name}`),
  ].filter((file) => existsSync(join(root, file)));
}

/** Paths a document names: its relative links, and code spans that are paths into the repository. */
function namedPaths(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const links = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z]+:/.test(target))
    .map((target) => relative(root, join(root, dirname(file), target)));
  const spans = [...text.matchAll(/`([\w.@-]+(?:\/[\w.@-]+)+)`/g)]
    .map((match) => match[1]!)
    .filter((path) => TOP.includes(path.split('/')[0]!) && !path.includes('…') && !/[<>*{}]/.test(path));
  return [...links, ...spans];
}

describe('the documents of the repository', () => {
  it.each(documents())('%s names only files that are in the repository', (file) => {
    const missing = namedPaths(file).filter(
      (path) => !existsSync(join(root, path)) && !existsSync(join(root, path.replace(/\.js$/, '.ts'))),
    );
    expect(missing).toEqual([]);
  });
});
