import { metrics } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { timeRpc } from '../grpc/server-metrics';
import { countProcessed } from '../kafka/consumer-metrics';
import { cachedObservation } from './metrics';

describe('cachedObservation', () => {
  it('computes once per max age and once at a time', async () => {
    let calls = 0;
    const read = cachedObservation(async () => ++calls, 60_000);
    expect(await Promise.all([read(), read()])).toEqual([1, 1]);
    expect(await read()).toBe(1);
    expect(calls).toBe(1);
  });

  it('reports nothing for a failed or late computation, and computes again next time', async () => {
    let fail = true;
    const failing = cachedObservation(async () => {
      if (fail) throw new Error('broker down');
      return 7;
    }, 60_000);
    expect(await failing()).toBeUndefined();
    fail = false;
    expect(await failing()).toBe(7);

    const late = cachedObservation(() => new Promise<number>((resolve) => setTimeout(() => resolve(3), 50)), 60_000, 10);
    expect(await late()).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await late()).toBe(3);
  });
});

describe('exposed names', () => {
  afterEach(() => metrics.disable());

  /** The Prometheus text of what was recorded, as the exporter serves it (this version appends no unit suffix). */
  async function scrapeText(record: () => void): Promise<string> {
    const exporter = new PrometheusExporter({
      preventServerStart: true,
      withoutScopeInfo: true,
      withResourceConstantLabels: /^service\.name$/,
    });
    const provider = new MeterProvider({ resource: resourceFromAttributes({ 'service.name': 'crm' }), readers: [exporter] });
    metrics.setGlobalMeterProvider(provider);
    record();
    const { resourceMetrics } = await exporter.collect();
    await provider.shutdown();
    return new PrometheusSerializer(undefined, false, /^service\.name$/, true, true).serialize(resourceMetrics);
  }

  it('keeps the names the dashboards and the autoscaler use: seconds in the name, _total on counters, labels as given', async () => {
    const text = await scrapeText(() => {
      timeRpc({ getPath: () => '/crm.v1.ContactService/CreateContact' })(0);
      countProcessed('webhooks', 'crm.domain-events.v1', 3);
    });
    expect(text).toContain(
      'rpc_server_duration_seconds_count{rpc_service="crm.v1.ContactService",rpc_method="CreateContact",rpc_grpc_status_code="0",service_name="crm"} 1',
    );
    expect(text).toContain(
      'crm_kafka_consumer_processed_events_total{consumer_group="webhooks",topic="crm.domain-events.v1",service_name="crm"} 3',
    );
    expect(text).toContain(
      'rpc_server_duration_seconds_bucket{rpc_service="crm.v1.ContactService",rpc_method="CreateContact",rpc_grpc_status_code="0",service_name="crm",le="10"} 1',
    );
  });
});
