import { AggregatorRegistry, Registry } from 'prom-client';
import { processMetrics } from './processMetrics';

/**
 * The exposition of /metrics: the embedded operators' metrics and this
 * process's own. One operator's registry is served as it is; with several
 * clusters every sample gets a `cluster` label, so the same metric of two
 * operators stays two series instead of clashing.
 */
export function operatorMetrics(
  operators: Array<{ cluster: string; registry: Registry }>,
): () => Promise<string> {
  if (operators.length <= 1) {
    const merged = Registry.merge([
      ...operators.map(x => x.registry),
      processMetrics(),
    ]);
    return () => merged.metrics();
  }
  return async () => {
    const labelled = await Promise.all(
      operators.map(async ({ cluster, registry }) =>
        (await registry.getMetricsAsJSON()).map(metric => ({
          ...metric,
          values: metric.values.map(v => ({
            ...v,
            labels: { ...v.labels, cluster },
          })),
        })),
      ),
    );
    // Sums samples with equal labels only: each cluster's stay apart.
    const combined = AggregatorRegistry.aggregate(labelled as never);
    return `${await combined.metrics()}\n${await processMetrics().metrics()}`;
  };
}
