/**
 * `npm run events:docs` writes docs/events.md from the event catalogue; `npm run events:check` (part of
 * `npm run check`) fails when the committed page differs from what the catalogue renders.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderEventDocs } from '../services/shared/src/events/event-docs';

const target = resolve(__dirname, '../docs/events.md');
const text = renderEventDocs();
if (process.argv[2] === '--check') {
  if (readFileSync(target, 'utf8') !== text) {
    console.error('docs/events.md is stale: run npm run events:docs and commit the result');
    process.exit(1);
  }
  console.log('docs/events.md is up to date');
} else {
  writeFileSync(target, text);
  console.log('wrote docs/events.md');
}
