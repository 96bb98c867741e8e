import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestOrg } from '../support/orgs';
import { testSystem } from '../support/system';

interface SpanLine {
  service: string;
  name: string;
  trace_id: string;
  span_id: string;
  parent_span_id?: string;
  attributes: Record<string, unknown>;
}

/**
 * The spans a process has written so far. Processes append while the test reads, so the text after the last newline
 * may be a line still being written: only complete lines are read (the gate failed once on a partial one).
 */
function spansOf(file: string): SpanLine[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.pop();
  return lines.filter(Boolean).map((line) => JSON.parse(line) as SpanLine);
}

/** The spans of every replica of a service (crm-1.jsonl, crm-2.jsonl, or crm.jsonl with one replica). */
const spansOfService = (dir: string, service: string): SpanLine[] =>
  readdirSync(dir)
    .filter((file) => file === `${service}.jsonl` || new RegExp(`^${service}-\\d+\\.jsonl$`).test(file))
    .flatMap((file) => spansOf(join(dir, file)));

describe('OpenTelemetry', () => {
  it('follows one request from the gateway through gRPC into the CRM service and its database calls', async () => {
    const { tracesDir } = testSystem();
    const org = await createTestOrg();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await org.raw.get('/v1/contacts?search=trace-me', {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(response.status).toBe(200);

    const deadline = Date.now() + 10_000;
    let gateway: SpanLine[] = [];
    let crm: SpanLine[] = [];
    while (Date.now() < deadline) {
      gateway = spansOf(join(tracesDir, 'gateway.jsonl')).filter((span) => span.trace_id === traceId);
      crm = spansOfService(tracesDir, 'crm').filter((span) => span.trace_id === traceId);
      if (gateway.some((s) => s.name.includes('ListContacts')) && crm.some((s) => s.name.includes('ListContacts')) && crm.length >= 3)
        break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const clientSpan = gateway.find((span) => span.name.includes('ListContacts'));
    const serverSpan = crm.find((span) => span.name.includes('ListContacts'));
    expect(gateway.length, 'gateway spans of the trace').toBeGreaterThan(0);
    expect(clientSpan, 'gateway gRPC client span').toBeDefined();
    expect(serverSpan, 'CRM gRPC server span').toBeDefined();
    // The service span is a child of the gateway's client span: one trace across both processes.
    expect(serverSpan?.parent_span_id).toBe(clientSpan?.span_id);
    expect(crm.some((span) => Object.values(span.attributes).includes('mongodb'))).toBe(true);
  });
});
