import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellCommands } from './shell-blocks';

/** The commands of a Markdown text, as the docs test reads them. */
function commandsOf(markdown: string) {
  const root = mkdtempSync(join(tmpdir(), 'shell-blocks-'));
  writeFileSync(join(root, 'doc.md'), markdown);
  return shellCommands(root, 'doc.md').map(({ line, command, comment }) => ({ line, command, comment }));
}

const block = (...lines: string[]) => ['Text', '', '```sh', ...lines, '```', ''].join('\n');

describe("a document's shell commands", () => {
  it('keeps a quote inside a trailing comment in the comment: the next line is a command of its own', () => {
    expect(commandsOf(block(`curl "$BASE/v1/api-keys"   # the organization's keys`, 'echo next'))).toEqual([
      { line: 4, command: 'curl "$BASE/v1/api-keys"', comment: "the organization's keys" },
      { line: 5, command: 'echo next', comment: '' },
    ]);
  });

  it('joins a quote spread over lines and `\\` continuations, and reads a # inside quotes as text', () => {
    expect(commandsOf(block(`curl -d '{"a":`, `  "#1"}' "$BASE"  # posts`, 'echo "#not a comment" \\', '  done'))).toEqual([
      { line: 4, command: `curl -d '{"a":\n  "#1"}' "$BASE"`, comment: 'posts' },
      { line: 6, command: 'echo "#not a comment" done', comment: '' },
    ]);
  });

  it('refuses a quote still open at the end of its block instead of reading the rest of the document into it', () => {
    expect(() => commandsOf(block(`echo 'unclosed`) + block('echo later'))).toThrow(/doc\.md:4: a quote .* still open/);
  });
});
