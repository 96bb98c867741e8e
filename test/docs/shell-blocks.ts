import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One command of a document's ```sh block: continuation lines joined, its trailing comment kept apart. */
export interface DocCommand {
  file: string;
  line: number;
  command: string;
  comment: string;
}

/** Splits `cmd   # comment` at the first `#` that starts a comment (outside quotes). */
function splitComment(line: string): { command: string; comment: string } {
  let quote: string | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (quote) {
      if (char === quote && line[index - 1] !== '\\') quote = undefined;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === '#' && (index === 0 || /\s/.test(line[index - 1] ?? ''))) {
      return { command: line.slice(0, index).trimEnd(), comment: line.slice(index + 1).trim() };
    }
  }
  return { command: line.trimEnd(), comment: '' };
}

/**
 * Every command of the ```sh blocks of a Markdown file, in order. A line ending in `\` continues on the next; an
 * open quote continues too (a JSON body spread over lines).
 */
export function shellCommands(root: string, file: string): DocCommand[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const commands: DocCommand[] = [];
  let inBlock = false;
  // A `\` continuation joins with a space (as bash reads it); a line inside an open quote keeps its newline.
  let pending: { start: number; text: string; joiner: string } | undefined;
  const openQuote = (text: string) => (text.replace(/\\./g, '').match(/'/g)?.length ?? 0) % 2 === 1;
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (/^```(sh|bash|shell)$/.test(line)) return void (inBlock = true);
    if (line === '```') return void (inBlock = false);
    if (!inBlock || (!pending && (line === '' || line.startsWith('#')))) return;
    const text = pending ? `${pending.text}${pending.joiner}${pending.joiner === ' ' ? line : raw}` : line;
    const start = pending?.start ?? index + 1;
    if (text.endsWith('\\')) return void (pending = { start, text: text.slice(0, -1).trimEnd(), joiner: ' ' });
    if (openQuote(text)) return void (pending = { start, text, joiner: '\n' });
    pending = undefined;
    commands.push({ file, line: start, ...splitComment(text) });
  });
  return commands;
}
