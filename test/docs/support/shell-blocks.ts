import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One command of a document's ```sh block: continuation lines joined, its trailing comment kept apart. */
export interface DocCommand {
  file: string;
  line: number;
  command: string;
  comment: string;
}

/**
 * Reads `text` as bash does for quotes and comments: where the comment of its last line begins (a `#` at the start
 * of a word, outside quotes; -1 if none) and whether a quote is still open at its end. A quote inside a comment
 * opens nothing (`# the organization's keys`).
 */
function scan(text: string): { commentAt: number; openQuote: boolean } {
  let quote: string | undefined;
  let commentAt = -1;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (commentAt >= 0) {
      if (char === '\n') commentAt = -1;
    } else if (quote) {
      if (char === '\\' && quote === '"') index++;
      else if (char === quote) quote = undefined;
    } else if (char === '\\') index++;
    else if (char === "'" || char === '"') quote = char;
    else if (char === '#' && (index === 0 || /\s/.test(text[index - 1] ?? ''))) commentAt = index;
  }
  return { commentAt, openQuote: quote !== undefined };
}

/** Splits `cmd   # comment` at the `#` that starts its comment. */
function splitComment(text: string): { command: string; comment: string } {
  const { commentAt } = scan(text);
  if (commentAt < 0) return { command: text.trimEnd(), comment: '' };
  return { command: text.slice(0, commentAt).trimEnd(), comment: text.slice(commentAt + 1).trim() };
}

/**
 * Every command of the ```sh blocks of a Markdown file, in order. A line ending in `\` continues on the next; an
 * open quote continues too (a JSON body spread over lines), but never past its block: a quote still open there is
 * an error of the document, not the start of one command that swallows the rest of it.
 */
export function shellCommands(root: string, file: string): DocCommand[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const commands: DocCommand[] = [];
  let inBlock = false;
  // A `\` continuation joins with a space (as bash reads it); a line inside an open quote keeps its newline.
  let pending: { start: number; text: string; joiner: string } | undefined;
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (/^```(sh|bash|shell)$/.test(line)) return void (inBlock = true);
    if (line === '```' && inBlock) {
      if (pending) throw new Error(`${file}:${pending.start}: a quote opened in this command is still open at the end of its block`);
      return void (inBlock = false);
    }
    if (!inBlock || (!pending && (line === '' || line.startsWith('#')))) return;
    const text = pending ? `${pending.text}${pending.joiner}${pending.joiner === ' ' ? line : raw}` : line;
    const start = pending?.start ?? index + 1;
    if (text.endsWith('\\')) return void (pending = { start, text: text.slice(0, -1).trimEnd(), joiner: ' ' });
    if (scan(text).openQuote) return void (pending = { start, text, joiner: '\n' });
    pending = undefined;
    commands.push({ file, line: start, ...splitComment(text) });
  });
  return commands;
}
