import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { percentile, round } from './stats';

/** One line of a process's span file (services/shared/src/telemetry/file-span-exporter.ts). */
interface SpanLine {
  service: string;
  name: string;
  kind: number;
  span_id: string;
  parent_span_id?: string;
  start_ms: number;
  duration_ms: number;
  attributes: Record<string, unknown>;
}

/** Where one request of a path spent its time, by segment, p50 and p99 in ms over the requests traced. */
export interface WaitProfile {
  requests: number;
  segments: Record<string, { p50_ms: number | null; p99_ms: number | null }>;
}

const SERVER = 1;
const CLIENT = 2;

function readSpans(dir: string): SpanLine[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.jsonl'))
    .flatMap((file) =>
      readFileSync(join(dir, file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as SpanLine),
    );
}

/**
 * The wait profile of the gateway's HTTP requests whose target contains `target` and that started within
 * [from, to]: per request, the time in the gateway before its gRPC call (authentication, limits, its bulkhead),
 * from the call to the service starting it (the service's event loop and gRPC queue), in the service before its first
 * database command (its handler, and the connection pool's queue: the driver's span starts once a connection is
 * checked out), in database commands, in the service after them, from the service's answer to the gateway having
 * read it (the gateway's event loop), and in the gateway after the call until the response ended.
 */
export function waitProfile(dir: string, target: string, from: number, to: number): WaitProfile {
  const spans = readSpans(dir);
  const children = new Map<string, SpanLine[]>();
  for (const span of spans) {
    if (!span.parent_span_id) continue;
    const list = children.get(span.parent_span_id) ?? [];
    list.push(span);
    children.set(span.parent_span_id, list);
  }
  const roots = spans.filter(
    (span) =>
      span.kind === SERVER &&
      span.service === 'gateway' &&
      span.start_ms >= from &&
      span.start_ms <= to &&
      Object.values(span.attributes).some((value) => typeof value === 'string' && value.includes(target)),
  );
  const segments: Record<string, number[]> = {
    total: [],
    gateway_before_call: [],
    to_service: [],
    service_before_db: [],
    db: [],
    service_after_db: [],
    back_to_gateway: [],
    gateway_after_call: [],
  };
  let requests = 0;
  for (const root of roots) {
    // The call to the data (ListContacts), not the occasional key lookup.
    const call = (children.get(root.span_id) ?? []).filter((span) => span.kind === CLIENT && span.name.includes('List')).at(-1);
    const served = call && (children.get(call.span_id) ?? []).find((span) => span.kind === SERVER);
    const db = served
      ? (children.get(served.span_id) ?? []).filter((span) => span.kind === CLIENT).sort((a, b) => a.start_ms - b.start_ms)
      : [];
    const first = db[0];
    const last = db.at(-1);
    if (!call || !served || !first || !last) continue;
    requests += 1;
    segments.total?.push(root.duration_ms);
    segments.gateway_before_call?.push(call.start_ms - root.start_ms);
    segments.to_service?.push(served.start_ms - call.start_ms);
    segments.service_before_db?.push(first.start_ms - served.start_ms);
    segments.db?.push(db.reduce((sum, span) => sum + span.duration_ms, 0));
    const servedEnd = served.start_ms + served.duration_ms;
    const callEnd = call.start_ms + call.duration_ms;
    segments.service_after_db?.push(servedEnd - (last.start_ms + last.duration_ms));
    segments.back_to_gateway?.push(callEnd - servedEnd);
    segments.gateway_after_call?.push(root.start_ms + root.duration_ms - callEnd);
  }
  return {
    requests,
    segments: Object.fromEntries(
      Object.entries(segments).map(([name, values]) => {
        const sorted = [...values].sort((a, b) => a - b);
        const at = (p: number) => (sorted.length > 0 ? round(percentile(sorted, p), 1) : null);
        return [name, { p50_ms: at(50), p99_ms: at(99) }];
      }),
    ),
  };
}
