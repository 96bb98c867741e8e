import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layout of a service (CONTRIBUTING.md, "The layout of a service"): each top-level file or folder of a
 * service's src/ has a rank, and an import may only go to a lower rank — never up, never sideways between two
 * folders of one rank. A folder not listed here fails the test: a new one needs a place in the order first.
 */
const RANKS: Record<string, number> = {
  main: 10,
  service: 9,
  server: 8,
  cli: 8,
  simulator: 8,
  wiring: 7,
  handlers: 6,
  http: 6,
  events: 6,
  // engines: background work woken by requests and events
  broadcasts: 5,
  runner: 5,
  worker: 5,
  domain: 4,
  // libraries that know records but no rules (provider adapters, model providers)
  providers: 3,
  models: 3,
  repository: 2,
  config: 1,
  // a leaf library: signing, SSRF guard, HTTP sender, retry schedule, secret box
  delivery: 0,
};

const SERVICES = ['crm', 'messaging', 'agents', 'webhooks'];
const root = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** The top-level entry of src/ a file belongs to: its folder, or its own name without .ts. */
const entryOf = (src: string, file: string) =>
  relative(src, file)
    .split('/')[0]!
    .replace(/\.[jt]s$/, '');

function importsBetweenEntries(service: string): Array<{ file: string; from: string; to: string }> {
  const src = join(root, 'services', service, 'src');
  return sourceFiles(src).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/(?:from|import\(?)\s*'(\.{1,2}\/[^']+)'/g)].map((match) => ({
      file: relative(root, file),
      from: entryOf(src, file),
      to: entryOf(src, normalize(join(dirname(file), match[1]!))),
    })),
  );
}

describe('the layout of every service', () => {
  it.each(SERVICES)('%s: every top-level file and folder has its place, and imports only run down', (service) => {
    const edges = importsBetweenEntries(service).filter((edge) => edge.from !== edge.to);
    const unplaced = [...new Set(edges.flatMap((edge) => [edge.from, edge.to]))].filter((entry) => !(entry in RANKS));
    expect(unplaced).toEqual([]);
    const upward = edges.filter((edge) => RANKS[edge.from]! <= RANKS[edge.to]!).map((edge) => `${edge.file} → ${edge.to}`);
    expect(upward).toEqual([]);
  });
});
