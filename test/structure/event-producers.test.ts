import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_KINDS } from '@crm/shared/events';
import { describe, expect, it } from 'vitest';

/**
 * Every kind of the event catalogue has a producer: the service the catalogue names writes it somewhere in its
 * sources (`newEvent(orgId, '<kind>', …)` or a table of kinds beside it). A kind nobody emits is a promise to
 * subscribers that is never kept; the end-to-end proof that each one arrives is test/e2e/events-every-kind.test.ts.
 */
const root = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

const codeOf = (service: string) =>
  sources(join(root, 'services', service, 'src'))
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');

describe('the event catalogue', () => {
  const code = new Map<string, string>();
  it.each(EVENT_KINDS.map((kind) => [kind.type, kind.producer] as const))('%s is emitted by its producer, %s', (type, producer) => {
    if (!code.has(producer)) code.set(producer, codeOf(producer));
    expect(code.get(producer)).toContain(`'${type}'`);
  });
});
