/** `npm run bench:report`: renders BENCHMARKS.md again from bench-results/*.json, without measuring anything. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import { renderReport } from './report';
import { readResults } from './results';

const report = renderReport(readResults());
writeFileSync(resolve(REPO_ROOT, 'BENCHMARKS.md'), report);
console.log(report);
