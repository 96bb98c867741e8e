import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

type Json = Record<string, any>;

/** One request schemathesis sent and what came back. */
export interface Interaction {
  /** `METHOD /path/template`, as in the document. */
  operation: string;
  phase: string;
  /** positive: the document calls the request valid; negative: invalid. */
  mode: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  status: number;
  contentType: string;
  /** The answer's body, or undefined when schemathesis kept only part of it. */
  body?: string;
  failedChecks: Array<{ check: string; title: string; message: string }>;
}

/** Requests per operation by outcome. */
export interface OperationCounts {
  requests: number;
  success: number;
  clientError: number;
  serverError: number;
}

const decode = (content: unknown): string | undefined => {
  if (content === null || content === undefined) return undefined;
  if (typeof content === 'string') return content;
  const base64 = (content as { $base64?: string }).$base64;
  return base64 === undefined ? JSON.stringify(content) : Buffer.from(base64, 'base64').toString('utf8');
};

const firstValues = (headers: Record<string, string[] | string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name, Array.isArray(value) ? (value[0] ?? '') : value]));

/** Every interaction of a run, read from schemathesis's NDJSON report (one ScenarioFinished event per scenario). */
export async function* interactionsOf(ndjsonFile: string): AsyncGenerator<Interaction> {
  const lines = createInterface({ input: createReadStream(ndjsonFile), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.startsWith('{"ScenarioFinished"')) continue;
    const finished = (JSON.parse(line) as Json).ScenarioFinished as Json;
    const recorder = finished.recorder as Json;
    for (const [id, interaction] of Object.entries((recorder.interactions ?? {}) as Json)) {
      const response = interaction.response as Json | null;
      if (!response) continue;
      const value = recorder.cases?.[id]?.value as Json | undefined;
      const request = interaction.request as Json;
      const failedChecks = ((recorder.checks?.[id] ?? []) as Json[])
        .filter((check) => check.status === 'failure')
        .map((check) => ({
          check: String(check.name),
          title: String(check.failure_info?.failure?.title ?? check.name),
          message: String(check.failure_info?.failure?.message ?? ''),
        }));
      const headers = firstValues(response.headers as Record<string, string[]>);
      yield {
        operation: value ? `${value.method as string} ${value.path as string}` : String(recorder.label),
        phase: String(finished.phase),
        mode: String(value?.meta?.generation?.mode ?? ''),
        request: { method: request.method, url: request.uri, headers: firstValues(request.headers), body: decode(request.body) },
        status: Number(response.status_code),
        contentType: headers['content-type'] ?? headers['Content-Type'] ?? '',
        body: response.content_size === undefined ? decode(response.content) : undefined,
        failedChecks,
      };
    }
  }
}

/** Adds one answer to the counts of its operation. */
export function count(counts: Map<string, OperationCounts>, interaction: Interaction): void {
  const entry = counts.get(interaction.operation) ?? { requests: 0, success: 0, clientError: 0, serverError: 0 };
  entry.requests++;
  if (interaction.status >= 200 && interaction.status < 300) entry.success++;
  else if (interaction.status >= 400 && interaction.status < 500) entry.clientError++;
  else if (interaction.status >= 500) entry.serverError++;
  counts.set(interaction.operation, entry);
}

const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** A curl command that sends the same request again; the key is left to $CRM_API_KEY. */
export function curlOf(request: Interaction['request']): string {
  const parts = ['curl', '-i', '-X', request.method, shellQuote(request.url)];
  parts.push('-H', '"Authorization: Bearer $CRM_API_KEY"');
  for (const [name, value] of Object.entries(request.headers)) {
    if (
      ['authorization', 'user-agent', 'accept-encoding', 'accept', 'connection', 'content-length', 'x-schemathesis-testcaseid'].includes(
        name.toLowerCase(),
      )
    )
      continue;
    parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (request.body !== undefined) parts.push('--data-binary', shellQuote(request.body));
  return parts.join(' ');
}

/** The table of requests per operation, for the run's output. */
export function countsTable(counts: Map<string, OperationCounts>): string {
  const rows = [...counts.entries()].sort(([a], [b]) => a.localeCompare(b));
  const lines = rows.map(
    ([operation, c]) =>
      `${operation.padEnd(52)} ${String(c.requests).padStart(6)} ${String(c.success).padStart(6)} ${String(c.clientError).padStart(6)} ${String(c.serverError).padStart(4)}`,
  );
  return [`${'operation'.padEnd(52)} ${'sent'.padStart(6)} ${'2xx'.padStart(6)} ${'4xx'.padStart(6)} ${'5xx'.padStart(4)}`, ...lines].join(
    '\n',
  );
}
