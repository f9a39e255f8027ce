import type {
  MetricAttributes,
  MetricsService,
  MetricsServiceObservableResult,
} from '@backstage/backend-plugin-api/alpha';
import type { Registry } from 'prom-client';

type Sample = { value: number; labels: Record<string, string | number>; metricName?: string };

/**
 * Bridges the embedded operator's Prometheus registry to the backend's
 * metrics service (OpenTelemetry): each metric becomes an observable read
 * when the exporter collects, so nothing is kept twice. Counters stay
 * counters, gauges gauges; a histogram is exported as its `_count` and
 * `_sum` counters (its buckets stay on the plugin's /metrics). With several
 * clusters' operators, one instrument per metric observes them all, each
 * sample with a `cluster` attribute.
 */
export function exportOperatorMetrics(
  metrics: MetricsService,
  sources: Array<{ cluster: string; registry: Registry }>,
): string[] {
  const exported: string[] = [];
  if (!sources.length) return exported;
  const several = sources.length > 1;
  for (const metric of sources[0].registry.getMetricsAsArray()) {
    const { name, help, type } = metric as unknown as { name: string; help: string; type: string };
    const observe =
      (pick: (s: Sample) => boolean) =>
      async (result: MetricsServiceObservableResult<MetricAttributes>) => {
        for (const { cluster, registry } of sources) {
          const same = registry.getSingleMetric(name) as unknown as { get(): Promise<{ values: Sample[] }> } | undefined;
          if (!same) continue;
          const { values } = await same.get();
          for (const s of values) {
            if (pick(s)) result.observe(s.value, (several ? { ...s.labels, cluster } : s.labels) as MetricAttributes);
          }
        }
      };
    if (type === 'counter') {
      metrics.createObservableCounter(name, { description: help }).addCallback(observe(() => true));
      exported.push(name);
    } else if (type === 'gauge') {
      metrics.createObservableGauge(name, { description: help }).addCallback(observe(() => true));
      exported.push(name);
    } else if (type === 'histogram') {
      for (const part of ['count', 'sum'] as const) {
        const partName = `${name}_${part}`;
        metrics
          .createObservableCounter(partName, { description: `${help} (${part})`, unit: part === 'sum' && name.endsWith('_seconds') ? 's' : undefined })
          .addCallback(observe(s => s.metricName === partName));
        exported.push(partName);
      }
    }
  }
  return exported;
}
