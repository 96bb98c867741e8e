import { testSystem } from './system';

/** One line of the Prometheus text format: `name{label="value",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = LINE.exec(line.trim());
    if (!match || line.startsWith('#')) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = value!.replace(/\\(.)/g, '$1');
    samples.push({ name: match[1]!, labels, value: Number(match[3] === '+Inf' ? Infinity : match[3]) });
  }
  return samples;
}

/** The metrics of every process whose name starts with `prefix` (`crm` → crm-1 and crm-2), scraped as Prometheus would. */
export async function scrape(prefix: string): Promise<Sample[]> {
  const targets = Object.entries(testSystem().metrics).filter(([name]) => name === prefix || name.startsWith(`${prefix}-`));
  if (targets.length === 0) throw new Error(`no metrics endpoint for ${prefix}`);
  const texts = await Promise.all(
    targets.map(async ([, url]) => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      return response.text();
    }),
  );
  return texts.flatMap(parsePrometheus);
}

/** The samples of `name` whose labels include `labels`. */
export const select = (samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] =>
  samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));

/** What `sum(name{labels})` answers in PromQL (0 when no series matches yet). */
export const total = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  select(samples, name, labels).reduce((sum, sample) => sum + sample.value, 0);
