import { CanaryMetrics, histogramQuantile, parseRequestCounters } from './TrackMetrics';

const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1];

/** A server's metrics text: its traffic counters plus probes and scrapes that are not traffic. */
function metricsText(search: { ok: number; failed: number; le: number[] }, probes = 100): string {
  const lines = [
    '# HELP inference_http_requests_total HTTP requests by route and status code',
    '# TYPE inference_http_requests_total counter',
    `inference_http_requests_total{method="POST",route="/v1/search",status="200"} ${search.ok}`,
    `inference_http_requests_total{method="POST",route="/v1/search",status="503"} ${search.failed}`,
    `inference_http_requests_total{method="GET",route="/readyz",status="200"} ${probes}`,
    `inference_http_requests_total{method="POST",route="/v1/model/reload",status="200"} 1`,
  ];
  const total = search.ok + search.failed;
  BOUNDS.forEach((le, i) => lines.push(`inference_http_request_duration_seconds_bucket{le="${le}",method="POST",route="/v1/search",status="200"} ${search.le[i]}`));
  lines.push(`inference_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/v1/search",status="200"} ${total}`);
  lines.push(`inference_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/readyz",status="200"} ${probes}`);
  return `${lines.join('\n')}\n`;
}

const pod = (name: string, track: string, uid = name, restarts = 0) => ({
  metadata: { name, namespace: 'ns', uid, labels: { 'cv.platform.tech/track': track } },
  status: { conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'inference', restartCount: restarts }] },
});

describe('per-version request metrics', () => {
  it('counts client traffic only, 5xx as errors', () => {
    const c = parseRequestCounters(metricsText({ ok: 90, failed: 10, le: [10, 50, 80, 95, 100] }));
    expect(c.requests).toBe(100);
    expect(c.errors).toBe(10);
    expect(c.buckets.get(0.005)).toBe(10);
    expect(c.buckets.get(Infinity)).toBe(100);
  });

  it('interpolates the 95th percentile within its bucket', () => {
    const buckets = new Map([[0.01, 50], [0.05, 90], [0.1, 100], [Infinity, 100]]);
    // Rank 95 lies halfway between 90 (50 ms) and 100 (100 ms).
    expect(histogramQuantile(0.95, buckets)).toBeCloseTo(0.075, 6);
    expect(histogramQuantile(0.95, new Map([[0.1, 0], [Infinity, 0]]))).toBeUndefined();
    // Beyond the last finite bound, that bound.
    expect(histogramQuantile(0.95, new Map([[0.1, 10], [Infinity, 100]]))).toBe(0.1);
  });

  it('reports each version over a window between two readings of the same containers', async () => {
    let now = 1_000_000;
    const texts: Record<string, string> = {
      s1: metricsText({ ok: 100, failed: 0, le: [0, 50, 100, 100, 100] }),
      c1: metricsText({ ok: 10, failed: 0, le: [0, 0, 0, 10, 10] }),
    };
    let changed = 0;
    const m = new CanaryMetrics({ read: async p => texts[p.metadata.name], intervalMs: 30_000, changed: () => changed++, now: () => now });
    const pods = { stable: [pod('s1', 'stable')], canary: [pod('c1', 'canary')] };
    const settle = () => new Promise(resolve => setImmediate(resolve));

    expect(m.of('ns/p', pods, 8080)).toBeUndefined();
    await settle();
    // One reading is no window yet.
    expect(m.of('ns/p', pods, 8080)).toBeUndefined();
    expect(changed).toBe(0);

    now += 30_000;
    texts.s1 = metricsText({ ok: 400, failed: 0, le: [0, 200, 400, 400, 400] });
    texts.c1 = metricsText({ ok: 65, failed: 5, le: [0, 0, 0, 20, 70] });
    m.of('ns/p', pods, 8080);
    await settle();
    expect(changed).toBe(1);
    const w = m.of('ns/p', pods, 8080)!;
    expect(w.windowSeconds).toBe(30);
    expect(w.stable).toEqual({ requestsPerSecond: 10, errorRate: 0, p95LatencyMs: 23.5 });
    expect(w.canary).toEqual({ requestsPerSecond: 2, errorRate: 0.0833, p95LatencyMs: 97 });

    // A restarted container starts a new series: no window from its counters.
    now += 30_000;
    const restarted = { stable: [pod('s1', 'stable', 's1', 1)], canary: pods.canary };
    texts.s1 = metricsText({ ok: 5, failed: 0, le: [5, 5, 5, 5, 5] });
    m.of('ns/p', restarted, 8080);
    await settle();
    const next = m.of('ns/p', restarted, 8080)!;
    expect(next.stable).toBeUndefined();
    expect(next.canary).toEqual({ requestsPerSecond: 0, errorRate: 0 });
  });
});
